import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withinBudget } from '../../src/email/draft/draft.activities';
import { wordEditDistance } from '../../src/drafting/edit-distance';
import { parseRawEmail } from '../../src/email/intake/mail-parser';
import { parseDraftJson } from '../../src/drafting/draft-prompt';
import { detectLanguage, detectLanguageOr } from '../../src/platform/language';
import { splitPassages } from '../../src/retrieval/passages';
import { priorityFromHeaders } from '../../src/triage/priority';

test('passages drop quoted history and respect the size limit', () => {
  const p = splitPassages(`Erster Absatz.\n\n> zitierte alte Mail\n> noch mehr\n\n${'x'.repeat(2000)}`, 800);
  assert.equal(p[0], 'Erster Absatz.');
  assert.ok(p.every((s) => s.length <= 800));
  assert.ok(!p.join(' ').includes('zitierte'));
});

test('a passage is never cut between the halves of an emoji (a lone surrogate is no UTF-8; embedders refuse it)', () => {
  const p = splitPassages(`${'a'.repeat(799)}🤖${'b'.repeat(900)}`, 800);
  assert.ok(p.every((s) => s.length <= 800));
  assert.ok(
    p.every((s) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s)),
    'no lone surrogate',
  );
  assert.equal(p.join('').replace(/\s/g, ''), `${'a'.repeat(799)}🤖${'b'.repeat(900)}`);
  // A limit smaller than a pair still ends (the pair is cut then, as before: nothing else fits).
  assert.ok(splitPassages('🤖🤖', 1).length > 0);
});

test('language and priority detection', () => {
  assert.equal(detectLanguage('Hallo, können Sie mir bitte helfen? Vielen Dank'), 'de');
  assert.equal(detectLanguage('Hello, could you please help me with my invoice? Thanks'), 'en');
  // A mailbox's language decides only when the mail holds no word of either language.
  assert.equal(detectLanguageOr('Rechnung 2024-117 ???', 'de'), 'de');
  assert.equal(detectLanguageOr('Invoice 2024-117 ???', 'en'), 'en');
  assert.equal(detectLanguageOr('Hello, could you please help me? Thanks', 'de'), 'en');
  assert.equal(priorityFromHeaders({ xPriority: '1 (Highest)' }), 'high');
  assert.equal(priorityFromHeaders({ importance: 'low' }), 'low');
  assert.equal(priorityFromHeaders({ priority: 'urgent' }), 'critical');
  assert.equal(priorityFromHeaders({}), 'normal');
});

test('draft JSON is validated; fences are tolerated; empty bodies are rejected', () => {
  const ok = parseDraftJson(
    '```json\n{"language":"de","category":"billing","subject":"Re: x","body":"Hallo","confidence":3,"used_source_ids":["a",1]}\n```',
  );
  assert.ok(ok);
  assert.equal(ok.confidence, 1);
  assert.deepEqual(ok.used_source_ids, ['a']);
  assert.equal(parseDraftJson('not json'), null);
  assert.equal(parseDraftJson('{"subject":"x","body":"  "}'), null);
});

test('parser extracts addresses, threading headers, html text and attachment metadata', async () => {
  const raw = Buffer.from(
    [
      'From: "Max Muster" <Max@Example.COM>',
      'Reply-To: tickets@example.com',
      'To: support@example.test',
      'Subject: =?utf-8?q?R=C3=BCckfrage?=',
      'Message-ID: <b@example.com>',
      'In-Reply-To: <a@example.com>',
      'References: <root@example.com> <a@example.com>',
      'X-Priority: 1',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<p>Hallo <b>Team</b></p><img src="http://tracker.example/x.png">',
      '--b1',
      'Content-Type: application/pdf; name="rechnung.pdf"',
      'Content-Disposition: attachment; filename="rechnung.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      'JVBERi0xLjQK',
      '--b1--',
      '',
    ].join('\r\n'),
  );
  const p = await parseRawEmail(raw, 'fallback');
  assert.deepEqual(p.from, { name: 'Max Muster', address: 'max@example.com' });
  assert.equal(p.replyTo?.address, 'tickets@example.com');
  assert.equal(p.subject, 'Rückfrage');
  assert.equal(p.inReplyTo, '<a@example.com>');
  assert.deepEqual(p.references, ['<root@example.com>', '<a@example.com>']);
  assert.equal(p.priority, 'high');
  assert.match(p.text, /Hallo TEAM|Hallo Team/);
  assert.equal(p.attachments[0]?.filename, 'rechnung.pdf');
  const reply = await parseRawEmail(Buffer.from('From: a@b.c\r\nReferences: <root@example.com>\r\n\r\nhi'), 'x');
  assert.equal(reply.threadId, p.threadId, 'same root, same thread');
});

test('a message without a header block is malformed (permanent)', async () => {
  await assert.rejects(parseRawEmail(Buffer.from('just some text without headers'), 'x'), { code: 'MALFORMED_MESSAGE' });
  await assert.rejects(parseRawEmail(Buffer.alloc(0), 'x'), { code: 'MALFORMED_MESSAGE' });
});

test('the context is cut to its budget in order of relevance', () => {
  const item = (id: string, n: number) => ({ sourceId: id, kind: 'similar' as const, text: 'x'.repeat(n) });
  const kept = withinBudget([item('a', 3000), item('b', 3000), item('c', 3000), item('d', 100)], 8000);
  assert.deepEqual(
    kept.map((k) => k.sourceId),
    ['a', 'b', 'c'],
  );
  assert.ok(kept[2]!.text.length <= 2002 + 2, 'the last one shortened');
  assert.equal(withinBudget([item('a', 9000)], 8000)[0]?.text.length, 8002);
});

test('edit size is counted in words', () => {
  assert.equal(wordEditDistance('Hallo Frau Muster, danke.', 'Hallo Frau Muster, danke.'), 0);
  assert.equal(wordEditDistance('Ihre Lieferung kommt morgen.', 'Ihre Lieferung kommt heute an.'), 2);
  assert.equal(wordEditDistance('', 'drei neue Wörter'), 3);
});

test('hostile HTML nested 30,000 levels deep parses (text below the depth limit is dropped) instead of overflowing the stack', async () => {
  const html = `<p>Visible start</p>${'<div>'.repeat(30_000)}deep text${'</div>'.repeat(30_000)}`;
  const raw = Buffer.from(
    [
      'From: a@customer.example',
      'To: c@example.test',
      'Subject: nested',
      'MIME-Version: 1.0',
      'Content-Type: text/html; charset=utf-8',
      '',
      html,
      '',
    ].join('\r\n'),
  );
  const parsed = await parseRawEmail(raw, 'email-nested');
  assert.match(parsed.text, /Visible start/);
});
