/**
 * A replay's drafts with examples, on real MariaDB and the real embedder, with the fixture
 * archive: a draft's examples are the team's replies of earlier pairs of the same run, sent before
 * the replayed mail came (no look-ahead), whose mail is of the same category by the same rule,
 * without their quotes, masked; DRAFT_EXAMPLES=0 and the offline drafter take none.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { readCategoryList } from '../../src/drafting/categories';
import { nearestCategory } from '../../src/drafting/category-match';
import type { DraftRequest, Drafter } from '../../src/drafting/drafter.port';
import { createOfflineDrafter } from '../../src/drafting/drafter.offline';
import { questionOf } from '../../src/drafting/reply-composer';
import { ownWords } from '../../src/replay/replay-measures';
import { createTestDatabase } from '../support/database';
import { startEmbedder, type EmbedderServer } from '../support/services/embedder';
import { countingDrafter, prepareFixtureRun, replayActivities, replayDeps } from '../support/replay-harness';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let embedder: EmbedderServer;

before(async () => {
  db = await createTestDatabase('replayex');
  embedder = await startEmbedder();
});
after(async () => {
  await embedder?.stop();
  await db?.drop();
});

/** A drafter that stands for a model (it is not named offline) and keeps every request. */
function recordingDrafter(): Drafter & { requests: DraftRequest[] } {
  const inner = createOfflineDrafter();
  const requests: DraftRequest[] = [];
  return { name: 'model-like', requests, draft: async (req) => (requests.push(req), inner.draft(req)) };
}

async function replayAll(runId: string, acts: ReturnType<typeof replayActivities>): Promise<void> {
  for (;;) {
    const { pairIds } = await acts.replayPending({ runId, limit: 4 });
    if (pairIds.length === 0) return;
    for (const pairId of pairIds) await acts.replayPair({ runId, pairId });
  }
}

interface PairMail {
  pairId: string;
  subject: string;
  body: string;
  customerAt: Date;
  reply: string;
  replyAt: Date;
}

async function pairMails(runId: string): Promise<PairMail[]> {
  const rows = (await db.pool.query(
    `SELECT p.pair_id, c.subject, c.body, c.sent_at AS customer_at, t.body AS reply, t.sent_at AS reply_at
       FROM replay_pairs p JOIN replay_messages c ON c.run_id = p.run_id AND c.message_key = p.pair_id
       JOIN replay_messages t ON t.run_id = p.run_id AND t.message_key = p.reply_key WHERE p.run_id = ?`,
    [runId],
  )) as Array<{ pair_id: string; subject: string; body: string; customer_at: Date; reply: string; reply_at: Date }>;
  return rows.map((r) => ({
    pairId: r.pair_id,
    subject: r.subject,
    body: r.body,
    customerAt: r.customer_at,
    reply: r.reply,
    replyAt: r.reply_at,
  }));
}

/** The pair whose reply an example was made from: the one sharing most of its longer words. */
function sourceOf(example: string, pairs: PairMail[]): PairMail {
  const words = (t: string) => new Set(t.toLowerCase().match(/\p{L}{6,}/gu) ?? []);
  const own = words(example);
  const score = (p: PairMail) => [...words(ownWords(p.reply))].filter((w) => own.has(w)).length;
  return pairs.reduce((best, p) => (score(p) > score(best) ? p : best));
}

test('examples come only from earlier pairs of the same category whose reply was sent before the mail, masked and without quotes', async () => {
  const { runId } = await prepareFixtureRun(db.pool);
  const drafter = recordingDrafter();
  const deps = { ...replayDeps(db.pool, embedder, drafter), examples: { count: 2, maxChars: 1_200 } };
  await replayAll(runId, replayActivities(deps));
  const pairs = await pairMails(runId);
  const categories = readCategoryList();
  const categoryOf = (p: PairMail) => nearestCategory(deps.embedder, questionOf(p.subject, p.body), categories);

  let withExamples = 0;
  for (const request of drafter.requests) {
    const pair = pairs.find((p) => request.emailId.endsWith(`:${p.pairId}`))!;
    const examples = request.examples ?? [];
    assert.ok(examples.length <= 2);
    if (examples.length > 0) withExamples++;
    for (const example of examples) {
      const from = sourceOf(example.text, pairs);
      assert.notEqual(from.pairId, pair.pairId, 'never the pair’s own reply');
      assert.ok(
        from.replyAt < pair.customerAt,
        `an example sent ${from.replyAt.toISOString()}, after the mail of ${pair.customerAt.toISOString()}`,
      );
      assert.equal(await categoryOf(from), await categoryOf(pair), 'the same category');
      assert.doesNotMatch(example.text, /^>|wrote:|schrieb/m, 'without the quoted original');
      for (const name of ['Thomas', 'Reed', 'Erika', 'Mustermann', 'Maria', 'Rossi', 'Jan Schulz', 'Petra']) {
        assert.ok(!example.text.includes(name), `"${name}" in an example: ${example.text}`);
      }
    }
  }
  assert.ok(withExamples > 0, 'some pair of the fixture has an earlier one of its category');
  // The earliest mail of the run has nothing before it.
  const first = pairs.reduce((a, b) => (a.customerAt < b.customerAt ? a : b));
  assert.equal(drafter.requests.find((r) => r.emailId.endsWith(`:${first.pairId}`))?.examples, undefined);
});

test('DRAFT_EXAMPLES=0 and the offline drafter draft without examples', async () => {
  const { runId } = await prepareFixtureRun(db.pool);
  const off = recordingDrafter();
  await replayAll(runId, replayActivities({ ...replayDeps(db.pool, embedder, off), examples: { count: 0, maxChars: 1_200 } }));
  assert.ok(off.requests.length > 0 && off.requests.every((r) => r.examples === undefined));

  const second = await prepareFixtureRun(db.pool);
  const offline = countingDrafter();
  await replayAll(second.runId, replayActivities({ ...replayDeps(db.pool, embedder, offline), examples: { count: 2, maxChars: 1_200 } }));
  assert.ok(offline.requests.length > 0 && offline.requests.every((r) => r.examples === undefined));
});
