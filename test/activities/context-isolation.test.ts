/**
 * Whose data a draft may see, end to end through the worker's own activities: real Dovecot and
 * MariaDB, and local HTTP TEST DOUBLES of Qdrant, ArangoDB and the embeddings API reached
 * through the official clients. Temporal is deliberately unreachable: an index step that tried
 * to make another customer's draft stale (a redraft signal) would fail.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createArangoGraph } from '../../src/retrieval/thread-graph.arango';
import { createFullTextIndex } from '../../src/retrieval/fulltext-index.mariadb';
import { createOpenAiEmbedder } from '../../src/retrieval/embedder.openai';
import { createQdrantIndex } from '../../src/retrieval/vector-index.qdrant';
import { loadConfig } from '../../src/config';
import { contextScope, type ContextPolicy } from '../../src/retrieval/context-scope';
import { imapEmailId } from '../../src/email/email-input';
import type { DraftContextItem } from '../../src/drafting/drafter.port';
import type { IndexableEmail, VectorIndex } from '../../src/retrieval/vector-index.port';
import type { ThreadGraph } from '../../src/retrieval/thread-graph.port';
import {
  ARANGO_DOUBLE_PASSWORD,
  EMBEDDINGS_DOUBLE_MODEL,
  startExternalStoreDoubles,
  type ExternalStoreDoubles,
} from '../support/external-store-doubles';
import { MAILBOX_USER, sampleEmail, startStack, type TestStack } from '../support/stack';
import { activityHarness } from './support';
import { ownThreadId } from '../../src/email/intake/thread-join';

type Harness = ReturnType<typeof activityHarness>;

let stack: TestStack;
let doubles: ExternalStoreDoubles;
let qdrant: ExternalStoreDoubles['qdrant'];
let arango: ExternalStoreDoubles['arango'];
let knowledgeDir: string;
/** Default rules: organisation context on, replies to others masked, threads joined by participants. */
let h: Harness;
/** CONTEXT_REUSE_REPLIES=off, CONTEXT_INCLUDE_ORGANISATION=false. */
let strict: Harness;
/** THREAD_JOIN_ORGANISATION=true. */
let orgJoin: Harness;
let fulltext: VectorIndex;
let vectors: VectorIndex;
let graph: ThreadGraph;
let nextUid = 1;

const DEFAULT_POLICY: ContextPolicy = { includeOrganisation: true, reuseReplies: 'masked' };

before(async () => {
  knowledgeDir = mkdtempSync(path.join(tmpdir(), 'email-rag-knowledge-'));
  mkdirSync(path.join(knowledgeDir, 'faq'));
  writeFileSync(
    path.join(knowledgeDir, 'faq', 'ruecksendung.md'),
    '# Rücksendung\n\nArtikel können innerhalb von 30 Tagen zurückgeschickt werden. Das Retourenlabel erstellen Sie im Kundenkonto unter "Rücksendung anmelden".\n',
  );
  writeFileSync(
    path.join(knowledgeDir, 'versand.txt'),
    'Versandkosten: innerhalb Deutschlands 4,90 Euro, ab 50 Euro Bestellwert kostenlos.\n',
  );
  writeFileSync(path.join(knowledgeDir, 'bild.png'), 'not text');
  doubles = await startExternalStoreDoubles();
  ({ qdrant, arango } = doubles);
  stack = await startStack({ temporal: false, env: { ...doubles.env, KNOWLEDGE_DIR: knowledgeDir } });
  h = activityHarness(stack.config);
  strict = activityHarness(loadConfig({ ...stack.env, CONTEXT_REUSE_REPLIES: 'off', CONTEXT_INCLUDE_ORGANISATION: 'false' }));
  orgJoin = activityHarness(loadConfig({ ...stack.env, THREAD_JOIN_ORGANISATION: 'true' }));
  fulltext = createFullTextIndex(stack.db.pool);
  vectors = createQdrantIndex({
    url: qdrant.url,
    collection: 'email_passages',
    embedder: createOpenAiEmbedder({
      baseUrl: doubles.embeddings.baseUrl,
      apiKey: 'k',
      model: EMBEDDINGS_DOUBLE_MODEL,
      timeoutMs: 5_000,
    }),
  });
  graph = createArangoGraph({ url: arango.url, databaseName: 'email_rag', username: 'root', password: ARANGO_DOUBLE_PASSWORD });
});
after(async () => {
  await Promise.all([h?.close(), strict?.close(), orgJoin?.close()]);
  await stack?.stop();
  await doubles?.stop();
  rmSync(knowledgeDir, { recursive: true, force: true });
});

/** Delivers, fetches and parses a message (with `via`'s rules); returns its email id. */
async function arrive(raw: string, via: Harness = h): Promise<string> {
  await stack.dovecot.deliver(MAILBOX_USER, raw);
  const listing = await via.deps.activities.mailboxes.get('default').imap.listSince('INBOX', nextUid - 1, 10);
  const uid = listing.messages.at(-1)!.uid;
  nextUid = uid + 1;
  const emailId = imapEmailId(MAILBOX_USER, 'INBOX', listing.uidValidity, uid);
  const input = { emailId, source: { kind: 'imap' as const, mailbox: 'INBOX', uidValidity: listing.uidValidity, uid } };
  await via.run(emailId, via.activities.fetchEmail, input);
  await via.run(emailId, via.activities.parseEmail, { emailId });
  return emailId;
}

async function indexed(raw: string): Promise<string> {
  const id = await arrive(raw);
  await h.run(id, h.activities.indexEmail, { emailId: id });
  return id;
}

/** The email as the draft step asks for context (its reply address as the correspondent). */
async function asQuery(emailId: string): Promise<IndexableEmail> {
  const e = (await h.deps.activities.messages.getEmail(emailId))!;
  return {
    emailId: e.id,
    threadId: e.threadId,
    account: MAILBOX_USER,
    mailbox: e.mailbox ?? '',
    direction: 'in',
    fromAddress: (e.replyTo ?? e.from)!.address,
    subject: e.subject,
    text: e.text,
    date: e.date,
  };
}

/** What each of the three indexes returns for the email, with the default rules. */
async function everyIndex(emailId: string, policy = DEFAULT_POLICY): Promise<Record<string, string[]>> {
  const q = await asQuery(emailId);
  const scope = contextScope(q, policy);
  const ids = (items: DraftContextItem[]) => items.map((i) => i.sourceId);
  return {
    fulltext: ids(await fulltext.retrieve(q, 8, scope)),
    qdrant: ids(await vectors.retrieve(q, 8, scope)),
    arango: (
      await graph.related(
        {
          emailId: q.emailId,
          fromAddress: q.fromAddress,
          account: MAILBOX_USER,
          mailbox: q.mailbox,
          includeOrganisation: scope.organisation !== null,
        },
        10,
      )
    ).map((r) => r.emailId),
  };
}

async function prompt(via: Harness, emailId: string, version = 1): Promise<{ text: string; contextIds: string[] }> {
  stack.llm.requests.length = 0;
  const draft = await via.run(emailId, via.activities.draftReply, { emailId, version });
  const stored = await via.deps.activities.drafts.get(draft.draftId);
  return {
    text: stack.llm.requests.map((r) => r.body.messages?.map((m) => m.content).join('\n') ?? '').join('\n'),
    contextIds: stored?.contextIds ?? [],
  };
}

async function threadOf(emailId: string): Promise<string> {
  return (await h.deps.activities.messages.getEmail(emailId))!.threadId;
}

async function audit(emailId: string, eventType: string): Promise<string[]> {
  const rows = (await stack.db.pool.query('SELECT message FROM audit_log WHERE email_id = ? AND event_type = ?', [
    emailId,
    eventType,
  ])) as Array<{
    message: string;
  }>;
  return rows.map((r) => r.message);
}

const ANNA = 'Anna Schmidt <anna@kunde-a.example>';
const BERND = 'Bernd Berger <bernd@kunde-b.example>';
const ANNA_SECRET = 'Meine Kundennummer ist 12345, mein Geburtsdatum der 3. Mai 1980.';
const REPLY_TO_ANNA =
  'Sehr geehrte Frau Schmidt,\n\nwir bestätigen die Kündigung Ihres Vertrags 4711 zum Monatsende. Ihre Kundennummer 12345 bleibt bis dahin aktiv; ' +
  'die letzte Abbuchung erfolgt von DE89 3704 0044 0532 0130 00. Rückfragen unter +49 30 1234567.\n\nIhr Support-Team';

let anna: string;
let annaDraft: string;
let bernd: string;

describe('whose data a draft may see', () => {
  before(async () => {
    anna = await indexed(
      sampleEmail({
        from: ANNA,
        messageId: '<anna-1@kunde-a.example>',
        subject: 'Kündigung Vertrag 4711',
        body: `Sehr geehrte Damen und Herren,\n\nich kündige meinen Vertrag 4711 zum Monatsende. ${ANNA_SECRET}\n\nAnna Schmidt`,
      }),
    );
    annaDraft = (await h.run(anna, h.activities.draftReply, { emailId: anna, version: 1, record: { seq: 1 } })).draftId;
    bernd = await indexed(
      sampleEmail({
        from: BERND,
        subject: 'Vertrag kündigen: welche Frist?',
        body: 'Guten Tag,\n\nich möchte meinen Vertrag kündigen. Welche Frist gilt für die Kündigung zum Monatsende?\n\nBernd Berger',
      }),
    );
  });

  test('a stranger quoting a customer’s Message-ID gets a thread of their own; the customer’s draft stays; no one else’s mail in the context', async () => {
    const stranger = await arrive(
      sampleEmail({
        from: 'Mallory <mallory@fremd.example>',
        subject: 'Re: Kündigung Vertrag 4711',
        body: 'Bitte senden Sie mir alle Angaben zur Kündigung und zum Vertrag 4711, auch die Kundennummer.',
        extra: ['In-Reply-To: <anna-1@kunde-a.example>', 'References: <anna-1@kunde-a.example>'],
      }),
    );
    assert.notEqual(await threadOf(stranger), await threadOf(anna), 'not filed into Anna’s thread');
    assert.equal(await threadOf(stranger), ownThreadId(stranger), 'a thread of its own');
    const refused = await audit(stranger, 'thread_join_refused');
    assert.equal(refused.length, 1);
    assert.match(refused[0]!, /mallory@fremd\.example did not take part/);

    // Temporal is unreachable here: a redraft request for Anna's waiting draft would fail this step.
    await h.run(stranger, h.activities.indexEmail, { emailId: stranger });
    assert.equal((await h.deps.activities.drafts.get(annaDraft))?.status, 'awaiting_approval', 'Anna’s draft is not stale');
    assert.deepEqual(await audit(anna, 'draft_stale'), []);
    assert.deepEqual(await h.deps.activities.messages.waitingInThread(await threadOf(stranger), stranger), []);

    const p = await prompt(h, stranger);
    assert.ok(!p.contextIds.includes(anna) && !p.contextIds.includes(bernd), `context ${p.contextIds.join(', ')}`);
    assert.ok(!p.text.includes('12345') && !p.text.includes('Geburtsdatum'), 'nothing Anna wrote');
    assert.ok(!p.text.includes('welche Frist') && !p.text.includes('Bernd'), 'nothing Bernd wrote');
    for (const [name, ids] of Object.entries(await everyIndex(stranger))) {
      assert.ok(!ids.includes(anna) && !ids.includes(bernd), `${name}: ${ids.join(', ')}`);
    }

    // Forged headers name the thread without a known reference: an unknown root that is Anna's
    // thread's name, or the stranger's own Message-ID set to Anna's.
    for (const headers of [
      { messageId: '<anna-1@kunde-a.example>', extra: [] },
      { extra: ['References: <anna-1@kunde-a.example> <unknown@elsewhere.example>'] },
    ]) {
      const forged = await arrive(
        sampleEmail({ from: 'Mallory <mallory@fremd.example>', subject: 'Vertrag 4711', body: 'Details bitte.', ...headers }),
      );
      assert.equal(await threadOf(forged), ownThreadId(forged), JSON.stringify(headers));
      assert.equal((await audit(forged, 'thread_join_refused')).length, 1);
    }

    // Anna's address as From does not open her thread for a Reply-To elsewhere (the draft would go there).
    const spoofed = await arrive(
      sampleEmail({
        from: ANNA,
        subject: 'Re: Kündigung Vertrag 4711',
        body: 'Bitte an meine neue Adresse antworten.',
        extra: ['Reply-To: <mallory@fremd.example>', 'In-Reply-To: <anna-1@kunde-a.example>'],
      }),
    );
    assert.equal(await threadOf(spoofed), ownThreadId(spoofed));
    assert.match((await audit(spoofed, 'thread_join_refused'))[0] ?? '', /mallory@fremd\.example did not take part/);
    const spoofedPrompt = await prompt(h, spoofed);
    assert.ok(!spoofedPrompt.contextIds.includes(anna), 'Anna’s mail is not drafted into a reply to Mallory');
    assert.ok(!spoofedPrompt.text.includes('Geburtsdatum'));

    // Anna's own follow-up is a genuine one: it joins, and her waiting draft is the one to renew.
    const followUp = await arrive(
      sampleEmail({
        from: ANNA,
        subject: 'Re: Kündigung Vertrag 4711',
        body: 'Haben Sie meine Kündigung erhalten?',
        extra: ['In-Reply-To: <anna-1@kunde-a.example>'],
      }),
    );
    assert.equal(await threadOf(followUp), await threadOf(anna));
    assert.deepEqual(await h.deps.activities.messages.waitingInThread(await threadOf(anna), followUp), [anna]);
    assert.deepEqual(await audit(followUp, 'thread_join_refused'), []);
  });

  test('two customers with overlapping words never see each other’s inbound mail, in any of the three indexes', async () => {
    const bernd2 = await indexed(
      sampleEmail({
        from: BERND,
        subject: 'Noch einmal: Kündigung Vertrag',
        body: 'Ist meine Kündigung des Vertrags zum Monatsende angekommen?',
      }),
    );
    const forBernd = await everyIndex(bernd2);
    for (const [name, ids] of Object.entries(forBernd)) {
      assert.ok(!ids.includes(anna), `${name} shows Anna’s mail to Bernd: ${ids.join(', ')}`);
      assert.ok(ids.includes(bernd), `${name} finds Bernd’s own earlier mail (so the filter is not simply empty): ${ids.join(', ')}`);
    }
    const forAnna = await everyIndex(anna);
    for (const [name, ids] of Object.entries(forAnna)) {
      assert.ok(!ids.includes(bernd) && !ids.includes(bernd2), `${name} shows Bernd’s mail to Anna: ${ids.join(', ')}`);
    }
    const p = await prompt(h, bernd2);
    assert.ok(!p.contextIds.includes(anna));
    assert.ok(!p.text.includes('Geburtsdatum'));
  });

  test('our reply to one customer reaches another only masked, or not at all with CONTEXT_REUSE_REPLIES=off', async () => {
    const sentId = `${anna}:draft:1:sent`;
    // Exactly what the send step indexes after a reply went out.
    await h.deps.activities.index.index({
      emailId: sentId,
      threadId: await threadOf(anna),
      mailbox: 'INBOX',
      direction: 'out',
      fromAddress: 'support@example.test',
      subject: 'Re: Kündigung Vertrag 4711',
      text: REPLY_TO_ANNA,
      date: new Date(),
    });
    const question = await indexed(
      sampleEmail({
        from: 'Clara Neu <clara@kunde-c.example>',
        subject: 'Bestätigung der Kündigung',
        body: 'Bestätigen Sie die Kündigung meines Vertrags zum Monatsende? Wann erfolgt die letzte Abbuchung?',
      }),
    );
    const q = await asQuery(question);
    for (const index of [fulltext, vectors]) {
      const replies = (await index.retrieve(q, 8, contextScope(q))).filter((i) => i.sourceId === sentId);
      assert.ok(replies.length > 0, `${index.name}: the reply is reusable knowledge`);
      for (const r of replies) {
        assert.equal(r.kind, 'own_reply', index.name);
        assert.match(r.text, /Frau \[name\]/);
        for (const secret of ['Schmidt', '12345', 'DE89', '3704', '1234567'])
          assert.ok(!r.text.includes(secret), `${index.name}: ${secret} in ${r.text}`);
      }
    }
    const p = await prompt(h, question);
    assert.ok(p.contextIds.includes(sentId), 'the masked reply is in the draft context');
    assert.match(p.text, /\[IBAN\]/);
    for (const secret of ['Schmidt', '12345', 'DE89 3704', '1234567', 'Geburtsdatum'])
      assert.ok(!p.text.includes(secret), `${secret} reached the prompt`);

    const off = await prompt(strict, question, 2);
    assert.ok(!off.contextIds.includes(sentId), `off: ${off.contextIds.join(', ')}`);
    assert.ok(!off.text.includes('Abbuchung erfolgt von'), 'off: not even masked');

    // Anna herself sees our reply to her in full, as her thread.
    const annaAgain = await arrive(
      sampleEmail({
        from: ANNA,
        subject: 'Re: Kündigung Vertrag 4711',
        body: 'Danke, und die letzte Abbuchung?',
        extra: ['In-Reply-To: <anna-1@kunde-a.example>'],
      }),
    );
    const own = (await fulltext.retrieve(await asQuery(annaAgain), 8)).find((i) => i.sourceId === sentId);
    assert.equal(own?.kind, 'thread');
    assert.match(own?.text ?? '', /Frau Schmidt/);
  });

  test('the same organisation sees colleagues’ mail when enabled, never at public providers; threads by organisation only when configured', async () => {
    const colleague = await indexed(
      sampleEmail({
        from: 'Dora Dahl <dora@kunde-a.example>',
        subject: 'Vertrag 4711 Ansprechpartner',
        body: 'Wer ist für unseren Vertrag 4711 zuständig?',
      }),
    );
    const withOrg = await everyIndex(colleague);
    assert.ok(withOrg.fulltext?.includes(anna), `full text: ${withOrg.fulltext?.join(', ')}`);
    assert.ok(withOrg.arango?.includes(anna), `graph: ${withOrg.arango?.join(', ')}`);
    assert.ok((await prompt(h, colleague)).contextIds.includes(anna));
    const withoutOrg = await everyIndex(colleague, { includeOrganisation: false, reuseReplies: 'off' });
    for (const [name, ids] of Object.entries(withoutOrg)) assert.ok(!ids.includes(anna), `${name} without organisation: ${ids.join(', ')}`);
    assert.ok(!(await prompt(strict, colleague, 2)).contextIds.includes(anna));

    const free1 = await indexed(
      sampleEmail({ from: 'eva@gmail.com', subject: 'Kündigung Vertrag 4711', body: 'Ich kündige den Vertrag 4711 fristgerecht.' }),
    );
    const free2 = await indexed(
      sampleEmail({ from: 'fritz@gmail.com', subject: 'Kündigung Vertrag', body: 'Ich kündige den Vertrag fristgerecht.' }),
    );
    for (const [name, ids] of Object.entries(await everyIndex(free2)))
      assert.ok(!ids.includes(free1), `${name}: gmail.com is no organisation: ${ids.join(', ')}`);
    for (const domain of ['web.de', 'gmx.de']) {
      const a = await indexed(sampleEmail({ from: `x@${domain}`, subject: 'Kündigung Vertrag', body: 'Ich kündige den Vertrag.' }));
      const b = await indexed(sampleEmail({ from: `y@${domain}`, subject: 'Kündigung Vertrag', body: 'Ich kündige den Vertrag.' }));
      for (const [name, ids] of Object.entries(await everyIndex(b))) assert.ok(!ids.includes(a), `${name}: ${domain} is no organisation`);
    }

    // A colleague answering Anna's thread: own thread by default, joined with THREAD_JOIN_ORGANISATION=true.
    const reply = (from: string) =>
      sampleEmail({
        from,
        subject: 'Re: Kündigung Vertrag 4711',
        body: 'Ich übernehme das für Anna.',
        extra: ['In-Reply-To: <anna-1@kunde-a.example>'],
      });
    const refused = await arrive(reply('Dora Dahl <dora@kunde-a.example>'));
    assert.notEqual(await threadOf(refused), await threadOf(anna));
    assert.match((await audit(refused, 'thread_join_refused'))[0] ?? '', /THREAD_JOIN_ORGANISATION is off/);
    const joined = await arrive(reply('Dora Dahl <dora@kunde-a.example>'), orgJoin);
    assert.equal(await threadOf(joined), await threadOf(anna));
    // Never for a public provider, whatever the setting.
    const gmailThread = await arrive(
      sampleEmail({ from: 'eva@gmail.com', messageId: '<eva-1@gmail.com>', subject: 'Frage', body: 'Eine Frage.' }),
    );
    const otherGmail = await arrive(
      sampleEmail({ from: 'fritz@gmail.com', subject: 'Re: Frage', body: 'Auch ich.', extra: ['In-Reply-To: <eva-1@gmail.com>'] }),
      orgJoin,
    );
    assert.notEqual(await threadOf(otherGmail), await threadOf(gmailThread));
  });

  test('knowledge folder: indexed in full text and Qdrant, retrieved for a matching question, synced idempotently', async () => {
    const first = await h.deps.syncKnowledge();
    assert.deepEqual(first?.added.sort(), ['faq/ruecksendung.md', 'versand.txt']);
    const again = await h.deps.syncKnowledge();
    assert.deepEqual([again?.added, again?.updated, again?.removed, again?.unchanged], [[], [], [], 2], 'nothing to do twice');

    const question = await indexed(
      sampleEmail({
        from: 'Gustav <gustav@kunde-g.example>',
        subject: 'Rücksendung',
        body: 'Wie kann ich einen Artikel zurückschicken, und wo bekomme ich das Retourenlabel?',
      }),
    );
    const q = await asQuery(question);
    for (const index of [fulltext, vectors]) {
      const knowledge = (await index.retrieve(q, 8, contextScope(q))).filter((i) => i.kind === 'knowledge');
      assert.equal(knowledge[0]?.sourceId, 'knowledge:faq/ruecksendung.md#1', `${index.name}: ${JSON.stringify(knowledge)}`);
      assert.equal(knowledge[0]?.title, 'faq/ruecksendung.md');
      assert.match(knowledge[0]?.text ?? '', /Retourenlabel/);
    }
    const p = await prompt(h, question);
    assert.ok(p.contextIds.includes('knowledge:faq/ruecksendung.md#1'), p.contextIds.join(', '));

    writeFileSync(path.join(knowledgeDir, 'versand.txt'), 'Versandkosten: innerhalb Deutschlands 5,90 Euro.\n');
    rmSync(path.join(knowledgeDir, 'faq', 'ruecksendung.md'));
    // The re-index sync schedule's activity brings the folder in line too.
    await h.run('reindex-sync', h.activities.reindexPartial, { limit: 10 });
    const synced = (await stack.db.pool.query(`SELECT details FROM audit_log WHERE event_type = 'knowledge_synced'`)) as Array<{
      details: string;
    }>;
    assert.equal(synced.length, 1);
    assert.deepEqual(JSON.parse(synced[0]!.details), { added: [], updated: ['versand.txt'], removed: ['faq/ruecksendung.md'] });
    const after = await h.deps.syncKnowledge();
    assert.deepEqual([after?.added, after?.updated, after?.removed, after?.unchanged], [[], [], [], 1]);
    const gone = (await stack.db.pool.query(
      `SELECT COUNT(*) AS n FROM passages WHERE email_id = 'knowledge:faq/ruecksendung.md'`,
    )) as Array<{ n: number }>;
    assert.equal(Number(gone[0]?.n), 0);
    for (const index of [fulltext, vectors]) {
      const items = await index.retrieve(q, 8, contextScope(q));
      assert.ok(!items.some((i) => i.sourceId.startsWith('knowledge:faq/')), `${index.name} still has the removed file`);
    }
    const text = (await stack.db.pool.query(`SELECT text FROM passages WHERE email_id = 'knowledge:versand.txt'`)) as Array<{
      text: string;
    }>;
    assert.match(text.map((t) => t.text).join(' '), /5,90/);
    assert.deepEqual(qdrant.unhandled, []);
    assert.deepEqual(arango.unhandled, []);
  });
});
