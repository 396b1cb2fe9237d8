/**
 * What named replay runs add to a category's earned-autonomy record, read from the replay's tables
 * (migration 033): the autonomy feature asks through its port (`ReplayEvidenceReader`), so the
 * replay's stored words stay here and autonomy never reads replay tables itself.
 */
import type { ReplayEvidence, ReplayEvidenceReader, ReplayRunCheck } from '../autonomy';
import { query, type Pool } from '../platform/pool.mariadb';
import { PAIR_RATINGS, PAIR_SOURCES, REPLAY_RESULT_STATE, REPLAY_RUN_STATUS, SHADOW_EVIDENCE_RUN } from './replay.contract';

/** Each named run as found in replay_runs (migration 033): only a finished run of this mailbox counts. */
async function checkRuns(pool: Pool, mailboxId: string, runIds: readonly string[]): Promise<ReplayRunCheck[]> {
  if (runIds.length === 0) return [];
  const rows = await query<Array<{ id: string; mailbox_id: string; status: string }>>(
    pool,
    'reading the replay runs a policy names',
    `SELECT id, mailbox_id, status FROM replay_runs WHERE id IN (${runIds.map(() => '?').join(', ')})`,
    [...runIds],
  );
  const found = new Map(rows.map((r) => [r.id, r]));
  return runIds.map((runId) => {
    // The mailbox's own shadow evidence is always there to count (what of it a person rated).
    if (runId === SHADOW_EVIDENCE_RUN) return { runId, problem: null };
    const r = found.get(runId);
    const problem = !r
      ? 'not_found'
      : r.mailbox_id !== mailboxId
        ? 'other_mailbox'
        : r.status !== REPLAY_RUN_STATUS.finished
          ? 'unfinished'
          : null;
    return { runId, problem };
  });
}

/**
 * The rated pairs of the usable runs in one category (and, when the policy names
 * `shadow`, the mailbox's rated shadow evidence): only a pair a person rated counts (a
 * similarity is not a judgement; `as_is` counts as an unchanged approval, the other ratings as
 * reviewed), a customer mail replayed in two named runs counts once (the run named first), and the
 * newest `limit` pairs (by the customer mail's date) are counted. Failed pairs count nothing.
 */
async function replayCounts(
  pool: Pool,
  mailboxId: string,
  usable: readonly string[],
  category: string,
  limit: number,
): Promise<{ available: number; reviewed: number; unchanged: number }> {
  const runIds = usable.filter((r) => r !== SHADOW_EVIDENCE_RUN);
  const shadow = usable.includes(SHADOW_EVIDENCE_RUN);
  if (runIds.length === 0 && !shadow) return { available: 0, reviewed: 0, unchanged: 0 };
  const marks = runIds.map(() => '?').join(', ');
  const parts: string[] = [];
  const params: unknown[] = [];
  if (runIds.length > 0) {
    parts.push(`SELECT d.rating, d.customer_at AS at, d.pair_id AS pair FROM (
         SELECT r.pair_id, pr.rating, p.customer_at,
                ROW_NUMBER() OVER (PARTITION BY r.pair_id ORDER BY FIELD(r.run_id, ${marks})) AS k
           FROM replay_results r JOIN replay_pairs p ON p.run_id = r.run_id AND p.pair_id = r.pair_id
           JOIN pair_ratings pr ON pr.source = '${PAIR_SOURCES.replay}' AND pr.pair_key = CONCAT(r.run_id, ':', r.pair_id)
          WHERE r.run_id IN (${marks}) AND r.state = '${REPLAY_RESULT_STATE.measured}' AND r.category = ?) d
        WHERE d.k = 1`);
    params.push(...runIds, ...runIds, category);
  }
  if (shadow) {
    parts.push(`SELECT pr.rating, s.replied_at AS at, s.email_id AS pair FROM shadow_evidence s
        JOIN pair_ratings pr ON pr.source = '${PAIR_SOURCES.shadow}' AND pr.pair_key = s.email_id
       WHERE s.mailbox_id = ? AND s.category = ?`);
    params.push(mailboxId, category);
  }
  const rows = await query<Array<{ available: number | bigint; reviewed: number | null; unchanged: number | null }>>(
    pool,
    'reading a category record from rated replay and shadow pairs',
    `SELECT COUNT(*) AS available, SUM(t.n <= ?) AS reviewed, SUM(t.n <= ? AND t.rating = '${PAIR_RATINGS.asIs}') AS unchanged FROM (
       SELECT u.rating, ROW_NUMBER() OVER (ORDER BY u.at DESC, u.pair DESC) AS n FROM (${parts.join(' UNION ALL ')}) u) t`,
    [limit, limit, ...params],
  );
  return {
    available: Number(rows[0]?.available ?? 0),
    reviewed: Number(rows[0]?.reviewed ?? 0),
    unchanged: Number(rows[0]?.unchanged ?? 0),
  };
}

export function createMariaDbReplayEvidence(pool: Pool): ReplayEvidenceReader {
  return {
    async replayRecord(mailboxId, category, runIds, limit): Promise<ReplayEvidence> {
      const runs = await checkRuns(pool, mailboxId, runIds);
      const usable = runs.filter((r) => r.problem === null).map((r) => r.runId);
      const allowed = Math.max(0, Math.floor(limit));
      return { runs, ...(await replayCounts(pool, mailboxId, usable, category, allowed)), allowed };
    },
  };
}
