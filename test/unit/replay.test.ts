/**
 * The replay's pure parts: pairing the fixture archive (test/fixtures/replay/support.mbox) by its
 * thread headers and team addresses, the facts of a reply, how knowledge files are dated, and the
 * report's intervals on a fixed small set (t-interval for means, Wilson for shares).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { readArchiveMails } from '../../src/replay/replay-archive';
import { pairArchive } from '../../src/replay/replay-pairing';
import { factsFound, factsOf, measurePair, ownWords } from '../../src/replay/replay-measures';
import { dateKnowledge, knowledgeAsOf, validFromLine } from '../../src/replay/dated-knowledge';
import { meanInterval, tQuantile975 } from '../../src/replay/replay-statistics';
import { summariseReplay } from '../../src/replay/replay-report';
import { REPLAY_OUTCOME, REPLAY_RESULT_STATE } from '../../src/replay/replay.contract';
import type { ReplayReportRow } from '../../src/replay/replay-store.port';
import { readKnowledgeFolder } from '../../src/retrieval/knowledge-folder.file';
import { nonAnswerReply } from '../../src/drafting/reply-composer';

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'replay');
const TEAM = ['support@example.test', 'anna@example.test'];
const near = (a: number | null | undefined, b: number) => a !== null && a !== undefined && Math.abs(a - b) < 0.0005;

test('pairing: each answered customer mail with the first team reply by its thread headers', async () => {
  const { mails, read, skipped } = await readArchiveMails(path.join(FIXTURE, 'support.mbox'), 1_000_000);
  assert.equal(read, 23);
  assert.equal(skipped, 0);
  const r = pairArchive(mails, TEAM);
  const subjects = r.pairs.map((p) => `${p.customer.messageId} -> ${p.reply.messageId}`);
  assert.deepEqual(subjects, [
    '<t1c@client.example> -> <t1r@example.test>',
    '<t2c@kunde.example> -> <t2r@example.test>',
    '<t5c@kunde.example> -> <t5r@example.test>',
    '<t6c@client.example> -> <t6r@example.test>',
    '<t7c@client.example> -> <t7r@example.test>',
    // Two mails, one reply to the second: it answers the second only.
    '<t8b@kunde.example> -> <t8r@example.test>',
    '<t10c@kunde.example> -> <t10r@example.test>',
    // No In-Reply-To: found by References.
    '<t11c@client.example> -> <t11r@example.test>',
  ]);
  // Not pairs: no reply (t3), a reply dated before the mail (t4), answered by someone outside the team (t9), t8a.
  for (const id of ['<t3c@client.example>', '<t4c@client.example>', '<t9c@corp.example>', '<t8a@kunde.example>']) {
    assert.ok(!r.pairs.some((p) => p.customer.messageId === id), id);
  }
  assert.equal(r.customerMails, 14);
  assert.equal(r.teamMails, 9);
  assert.equal(r.unanswered, 6);
  assert.equal(r.correspondentOf.get(r.pairs[2]!.reply.key), 'erika@kunde.example');
  // A reply without any outside recipient (a list archive keeps no To) still belongs to the customer it answers.
  const noTo = mails.map((m) => (m.messageId === '<t1r@example.test>' ? { ...m, to: [] } : m));
  const listed = pairArchive(noTo, TEAM);
  assert.equal(listed.correspondentOf.get(listed.pairs[0]!.reply.key), 'thomas@client.example');
  // A colleague's own address counts only when named as a team address.
  const mailboxOnly = pairArchive(mails, ['support@example.test']);
  assert.equal(mailboxOnly.pairs.length, 7);
  assert.ok(!mailboxOnly.pairs.some((p) => p.customer.messageId === '<t5c@kunde.example>'));
  // A thread is one thread whichever mail is asked.
  const t5 = mails.filter((m) => m.messageId?.startsWith('<t5'));
  assert.equal(new Set(t5.map((m) => r.threadOf.get(m.key))).size, 1);
});

test('facts of a reply: amounts, dates, numbers, links and addresses; found in a draft when it has them', () => {
  const sent =
    'We refunded 49,90 € for invoice RE-2025-0042 on 03.03.2025; see https://example.test/refunds. Questions: billing@example.test, ticket #123456.';
  const kinds = factsOf(sent).map((f) => `${f.kind}:${f.value}`);
  assert.deepEqual(kinds.sort(), [
    'amount:49.90',
    'date:3.03.2025',
    'email:billing@example.test',
    'link:https://example.test/refunds',
    'number:123456',
    'number:RE-2025-0042',
  ]);
  assert.deepEqual(factsFound(sent, 'The refund of EUR 49.90 for RE-2025-0042 is on its way.'), { total: 6, found: 2 });
  assert.equal(ownWords('Thanks!\n\nOn Mon, 3 Mar 2025 Thomas wrote:\n> question'), 'Thanks!');
  assert.equal(ownWords('Danke.\n> zitiert\nGrüße'), 'Danke.\nGrüße');
  // Answers between the quotes (a mailing list's habit) are the reply.
  assert.equal(ownWords('On Tue, Mar 2, Markus\nHuerzeler wrote:\n> q1\nanswer one\n> q2\nanswer two'), 'answer one\nanswer two');
  assert.equal(ownWords('Prof Ripley <r at x> writes:\n\n> q\n\nYup.'), 'Yup.');
  assert.equal(ownWords('Reply.\n\nVon: Kunde <k@x.de>\nGesendet: Montag\nAn: uns\n\nalter Text'), 'Reply.');
  assert.equal(ownWords('Reply.\n-----Original Message-----\nold'), 'Reply.');
});

test('would-be outcome: unchanged, light, heavy by draft-quality thresholds; not answerable without context', async () => {
  const sent = 'one two three four five six seven eight nine ten';
  assert.equal((await measurePair({ draft: sent, sent, answerable: true }, undefined)).outcome, REPLAY_OUTCOME.unchanged);
  assert.equal(
    (await measurePair({ draft: 'one two three four five six seven eight nine TEN', sent, answerable: true }, undefined)).outcome,
    REPLAY_OUTCOME.light,
  );
  assert.equal((await measurePair({ draft: 'something else entirely', sent, answerable: true }, undefined)).outcome, REPLAY_OUTCOME.heavy);
  assert.equal((await measurePair({ draft: sent, sent, answerable: false }, undefined)).outcome, REPLAY_OUTCOME.notAnswerable);
});

test('the non-answer floor: the same sent reply measured against a fixed polite non-answer, on the pairs with a similarity', async () => {
  const sent = 'Use the export page.\n\nOn Monday, Kim wrote:\n> how do I export?';
  const nonAnswer = nonAnswerReply('en');
  // Greeting, thanks, "nothing found, a person will answer", closing: no name, no subject.
  assert.match(
    nonAnswer,
    /^Hello,\n\nthank you for your message\.\n\nUnfortunately we found nothing relevant[^]*\n\nBest regards\nThe support team$/,
  );
  assert.match(nonAnswerReply('de'), /^Guten Tag,\n\nvielen Dank für Ihre Nachricht\.\n\nZu Ihrer Frage haben wir [^]*Ihr Support-Team$/);
  const seen: string[][] = [];
  // The sent reply is compared without its quote; the vectors make the cosines 0.6 (draft) and 0.8 (non-answer).
  const vectors: Record<string, number[]> = { draft: [1, 0], 'Use the export page.': [0.6, 0.8], [nonAnswer]: [0, 1] };
  const embedder = {
    model: 'fixed',
    embed: (texts: string[]) => (seen.push(texts), Promise.resolve(texts.map((t) => vectors[t]!))),
  };
  const m = await measurePair({ draft: 'draft', sent, answerable: true, nonAnswer }, embedder);
  assert.deepEqual([m.similarity, m.nonAnswerSimilarity], [0.6, 0.8]);
  assert.equal(seen.length, 1, 'one request for the draft, the reply and the non-answer');
  // No draft to compare: no similarity, and no floor either, so both cover the same pairs.
  const empty = await measurePair({ draft: '', sent, answerable: false, nonAnswer }, embedder);
  assert.deepEqual([empty.similarity, empty.nonAnswerSimilarity], [null, null]);
  // No non-answer given: the similarity alone.
  assert.deepEqual((await measurePair({ draft: 'draft', sent, answerable: true }, embedder)).nonAnswerSimilarity, null);
});

test('knowledge is dated by its valid_from line, else the ledger; undated files are used by no mail', () => {
  const { files } = readKnowledgeFolder(path.join(FIXTURE, 'knowledge'));
  assert.equal(validFromLine('---\nvalid_from: 2025-06-01\n---\n# x')?.toISOString(), '2025-06-01T00:00:00.000Z');
  const dated = dateKnowledge(files, new Map([['billing.md', new Date('2030-01-01T00:00:00Z')]]));
  const by = new Map(dated.map((f) => [f.path, f]));
  // The file's own line wins over the ledger.
  assert.equal(by.get('billing.md')?.dating, 'valid_from');
  assert.equal(by.get('undated.md')?.dating, 'undated');
  assert.ok(!by.get('shipping.md')!.text.includes('valid_from'));
  const april = knowledgeAsOf(dated, new Date('2025-04-15T13:00:00Z')).map((f) => f.path);
  assert.deepEqual(april, ['billing.md', 'konto.md']);
  const june = knowledgeAsOf(dated, new Date('2025-06-16T08:00:00Z')).map((f) => f.path);
  assert.deepEqual(june, ['billing.md', 'konto.md', 'shipping.md']);
  const ledgerOnly = dateKnowledge([{ path: 'x.md', text: 'no date', sha256: '' }], new Map([['x.md', new Date('2025-05-01T00:00:00Z')]]));
  assert.equal(knowledgeAsOf(ledgerOnly, new Date('2025-04-30T00:00:00Z')).length, 0);
  assert.equal(knowledgeAsOf(ledgerOnly, new Date('2025-05-02T00:00:00Z')).length, 1);
});

test('t quantiles: the table and its continuation', () => {
  assert.equal(tQuantile975(2), 4.303);
  assert.ok(Math.abs(tQuantile975(40) - 2.021) < 0.001);
  assert.ok(Math.abs(tQuantile975(120) - 1.98) < 0.001);
});

const row = (over: Partial<ReplayReportRow>): ReplayReportRow => ({
  pairId: 'p',
  mailboxId: 'default',
  state: REPLAY_RESULT_STATE.measured,
  outcome: REPLAY_OUTCOME.heavy,
  similarity: null,
  nonAnswerSimilarity: null,
  editShare: null,
  factsTotal: 0,
  factsFound: 0,
  category: 'billing',
  language: 'en',
  knowledgeGap: false,
  subject: 's',
  body: 'b',
  at: new Date('2025-05-01T00:00:00Z'),
  ...over,
});

test('the report on a fixed set: t-intervals of the means, Wilson intervals of the shares (deterministic)', () => {
  const rows = [
    row({
      pairId: 'a',
      outcome: REPLAY_OUTCOME.unchanged,
      similarity: 0.5,
      nonAnswerSimilarity: 0.3,
      editShare: 0,
      factsTotal: 2,
      factsFound: 2,
    }),
    row({
      pairId: 'b',
      outcome: REPLAY_OUTCOME.light,
      similarity: 0.6,
      nonAnswerSimilarity: 0.2,
      editShare: 0.2,
      factsTotal: 2,
      factsFound: 1,
    }),
    row({
      pairId: 'c',
      category: 'shipping',
      language: 'de',
      outcome: REPLAY_OUTCOME.heavy,
      similarity: 0.7,
      nonAnswerSimilarity: 0.4,
      editShare: 0.5,
      factsTotal: 1,
      knowledgeGap: true,
    }),
    row({ pairId: 'd', category: 'shipping', language: 'de', outcome: REPLAY_OUTCOME.notAnswerable, editShare: 1, knowledgeGap: true }),
    row({ pairId: 'e', state: REPLAY_RESULT_STATE.error, outcome: null }),
  ];
  const s = summariseReplay(rows, null);
  assert.deepEqual([s.total.pairs, s.total.measured, s.total.failed, s.total.knowledgeGaps], [5, 4, 1, 2]);
  // Similarity 0.5, 0.6, 0.7: mean 0.6 ± t(2) 4.303 × 0.1 / √3.
  assert.ok(near(s.total.similarity?.mean, 0.6) && near(s.total.similarity?.lower, 0.3516) && near(s.total.similarity?.upper, 0.8484));
  // The non-answer's floor on the same three pairs, 0.3, 0.2, 0.4: the same spread, 0.3 lower.
  assert.ok(
    near(s.total.nonAnswerFloor?.mean, 0.3) && near(s.total.nonAnswerFloor?.lower, 0.0516) && near(s.total.nonAnswerFloor?.upper, 0.5484),
  );
  assert.deepEqual(
    s.byCategory.map((g) => [g.group, g.nonAnswerFloor?.mean ?? null]),
    [
      ['billing', 0.25],
      ['shipping', 0.4],
    ],
  );
  // A run measured before the floor existed has none to show.
  assert.equal(summariseReplay([row({ similarity: 0.5 }), row({ similarity: 0.6 })], null).total.nonAnswerFloor, null);
  // Edit share 0, 0.2, 0.5, 1: mean 0.425; the interval (−0.267…1.117) kept within 0..1.
  assert.deepEqual(s.total.editShare, { n: 4, mean: 0.425, lower: 0, upper: 1 });
  const unchanged = s.total.outcomes[REPLAY_OUTCOME.unchanged];
  assert.ok(unchanged.count === 1 && unchanged.of === 4 && near(unchanged.lower, 0.0456) && near(unchanged.upper, 0.6994));
  assert.ok(s.total.facts.count === 3 && s.total.facts.of === 5 && near(s.total.facts.lower, 0.2307) && near(s.total.facts.upper, 0.8824));
  assert.deepEqual(
    s.byCategory.map((g) => [g.group, g.pairs]),
    [
      ['billing', 3],
      ['shipping', 2],
    ],
  );
  assert.deepEqual(
    s.byLanguage.map((g) => g.group),
    ['en', 'de'],
  );
  // One value has no spread: a mean without bounds.
  assert.deepEqual(meanInterval([0.3], [0, 1]), { n: 1, mean: 0.3, lower: null, upper: null });
  // Earned autonomy's bar under the defaults (50 reviewed): nothing would qualify on this record.
  const billing = s.autonomy.find((a) => a.category === 'billing')!;
  assert.deepEqual([billing.reviewed, billing.unchanged, billing.clearsBar, billing.listed], [2, 1, false, false]);
});

test('autonomy would-be: 60 of 60 unchanged clears the default bar; listed only when the policy names the category', () => {
  const rows = Array.from({ length: 60 }, (_, i) => row({ pairId: `p${i}`, outcome: REPLAY_OUTCOME.unchanged }));
  const policy = {
    name: 'p',
    version: '1',
    mailboxes: {
      default: {
        mailboxId: 'default',
        categories: ['billing'],
        minReviewed: 50,
        recordSize: 200,
        minUnchangedShare: 0.9,
        graceMinutes: 10,
        minConfidence: 0.8,
        neverAutomatic: [],
      },
    },
  };
  const [a] = summariseReplay(rows, policy).autonomy;
  assert.deepEqual([a!.clearsBar, a!.listed], [true, true]);
});
