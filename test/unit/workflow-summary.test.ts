import assert from 'node:assert/strict';
import { test } from 'node:test';
import { currentDetailsLine, emailDetails, emailSummary } from '../../src/email/email-display';
import { markdownLiteral, oneLine, SUMMARY_MAX_JSON_BYTES } from '../../src/platform/workflow-summary';

/** What CommonMark shows for text made only of escapes: every backslash before punctuation drops. */
const shown = (markdown: string) => markdown.replace(/\\([!-/:-@[-`{-~])/g, '$1');

test('the summary is subject and sender on one line', () => {
  assert.equal(
    emailSummary({ subject: 'Rechnung 2024-117 doppelt abgebucht', fromName: 'Erika Mustermann', fromAddress: 'erika@customer.example' }),
    'Rechnung 2024-117 doppelt abgebucht — Erika Mustermann (erika@customer.example)',
  );
  assert.equal(emailSummary({ subject: '', fromName: null, fromAddress: null }), '(no subject) — (unknown sender)');
  assert.equal(emailSummary({ subject: 'Hi', fromName: 'a@b.example', fromAddress: 'a@b.example' }), 'Hi — a@b.example');
});

test('control characters, line breaks and bidi overrides never reach the summary', () => {
  const summary = emailSummary({
    subject: 'Rechnung\r\n\tBcc: x@evil.example\u0000\u001b[31m rot \u202egnuhcer\u202c\u200b!',
    fromName: 'Eve\nAdmin',
    fromAddress: 'eve@evil.example',
  });
  assert.doesNotMatch(summary, /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f]/);
  assert.equal(shown(summary), 'Rechnung Bcc: x@evil.example [31m rot gnuhcer ! — Eve Admin (eve@evil.example)');
});

test('markup a sender plants in a subject is shown literally, not rendered', () => {
  const hostile = [
    '![x](http://tracker.example/p.png) <img src=x onerror=alert(1)>',
    '**fett** [klick](javascript:alert(1)) &lt; `code`',
    'https://evil.example ~~weg~~ <https://evil.example> _kursiv_ {x} a|b',
  ];
  for (const subject of hostile) {
    const summary = emailSummary({ subject, fromName: '<script>alert(1)</script>', fromAddress: 'a@b.example' });
    // No unescaped character that could open markup, HTML, an entity or an autolink is left.
    assert.doesNotMatch(summary.replace(/\\[!-/:-@[-`{-~]/g, ''), /[<[`*~]|&#?[a-z0-9]+;|:\/\/|(^|\s)_|_(\s|$)/i, summary);
    assert.equal(shown(summary), `${subject} — <script>alert(1)</script> (a@b.example)`);
  }
  assert.equal(markdownLiteral('- Liste'), '\\- Liste');
  assert.equal(markdownLiteral('1. Punkt'), '1\\. Punkt');
  assert.equal(markdownLiteral('# Titel'), '\\# Titel');
  assert.equal(markdownLiteral('awaiting_approval'), 'awaiting_approval');
  assert.equal(markdownLiteral('> Zitat'), '\\> Zitat');
  // Links by scheme, and the typographer's dashes (checked against the Web UI's own renderer).
  assert.equal(markdownLiteral('mailto:a@b.c --force'), 'mailto\\:a@b.c -\\-force');
  // Punctuation that starts nothing stays as it is, so the CLI shows it unescaped too.
  assert.equal(
    markdownLiteral('Müller & Söhne: Auftrag #48213 | Frage (dringend)! {x}'),
    'Müller & Söhne: Auftrag #48213 | Frage (dringend)! {x}',
  );
});

test('long subjects are cut with an ellipsis, and the summary fits well inside the 400-byte limit even in escapes and 4-byte characters', () => {
  const long = emailSummary({ subject: 'Sehr lange Betreffzeile '.repeat(20), fromName: 'Erika', fromAddress: 'erika@customer.example' });
  assert.match(long, /… — Erika \(erika@customer\.example\)$/);
  for (const ch of ['a', 'ä', '€', '😀', '<', '&', '"', '\\']) {
    const summary = emailSummary({ subject: ch.repeat(500), fromName: ch.repeat(300), fromAddress: `${'x'.repeat(60)}@example.com` });
    assert.ok(
      Buffer.byteLength(JSON.stringify(summary)) <= SUMMARY_MAX_JSON_BYTES,
      `${ch}: ${Buffer.byteLength(JSON.stringify(summary))} bytes`,
    );
    assert.ok(summary.length > 20, 'still says something');
    assert.doesNotMatch(summary, /[\ud800-\udbff](?![\udc00-\udfff])/, 'no surrogate pair is split');
  }
  assert.equal(oneLine('abcdef', 4), 'abc…');
});

test('details name mailbox, priority, sender and thread; ids are code spans', () => {
  const details = emailDetails({
    subject: 'x',
    fromName: 'Erika',
    fromAddress: 'erika@customer.example',
    priority: 'critical',
    mailbox: 'INBOX',
    uid: 17,
    messageId: '<m1@customer.example>',
    inReplyTo: '<`evil`@x>',
  });
  assert.equal(
    details,
    [
      '**Mailbox:** INBOX (UID 17)',
      '**Priority at intake:** critical',
      '**From:** Erika (erika@customer.example)',
      "**Thread:** reply to `<'evil'@x>`",
      '**Message-ID:** `<m1@customer.example>`',
    ].join('\n'),
  );
  assert.match(
    emailDetails({ subject: null, priority: 'low', mailbox: 'file', file: 'a.eml' }),
    /imported file a\.eml[^]*new conversation/,
  ); // With several mailboxes the registry id comes first.
  assert.match(
    emailDetails({ subject: null, priority: 'low', mailboxId: 'billing', mailbox: 'INBOX', uid: 3 }),
    /^\*\*Mailbox:\*\* billing: INBOX \(UID 3\)$/m,
  );
  assert.match(
    emailDetails({ subject: null, priority: 'low', mailboxId: 'billing', mailbox: 'file', file: 'a.eml' }),
    /billing: imported file a\.eml/,
  );
});

test('current details say the status, why, and the draft id a decision must name', () => {
  assert.equal(
    currentDetailsLine('awaiting_approval', 'waiting for approval of draft 2', 'email-x:draft:2'),
    'awaiting_approval: waiting for approval of draft 2 — decide on draftId `email-x:draft:2`',
  );
  assert.equal(
    shown(currentDetailsLine('rejected', 'rejected by bob: <b>spam</b>\nnext line')),
    'rejected: rejected by bob: <b>spam</b> next line',
  );
});
