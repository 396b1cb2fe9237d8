/**
 * A person's ratings of drafts beside the replies the team sent (table `pair_ratings`): the pairs
 * of replay runs and the shadow evidence of live mail, offered one at a time at random, so the
 * rated pairs are a sample rather than the ones someone chose. Only rated pairs count toward a
 * category's earned autonomy (replay-evidence.mariadb.ts).
 */
import { query, type Pool } from '../platform/pool.mariadb';
import { PAIR_SOURCES, REPLAY_RESULT_STATE, type PairRating, type PairSource } from './replay.contract';

/** One pair to rate: what the customer wrote, the draft, and the reply the team sent. */
export interface RatingPair {
  source: PairSource;
  pairKey: string;
  runId: string | null;
  mailboxId: string;
  category: string;
  subject: string;
  customer: string;
  draft: string;
  reply: string;
}

export interface PairRatingStore {
  /** A random pair nobody rated yet, or null. */
  nextUnrated(): Promise<RatingPair | null>;
  /** Records (or changes) the rating of one pair; false when no such pair exists. */
  rate(input: { source: PairSource; pairKey: string; rating: PairRating; by: string }): Promise<boolean>;
  counts(): Promise<{ rated: number; unrated: number }>;
}

/** The pairs a person can rate, with their texts; `unrated` keeps those without a rating. */
function pairsSql(unrated: boolean): string {
  const only = (source: string, key: string) =>
    unrated ? `AND NOT EXISTS (SELECT 1 FROM pair_ratings pr WHERE pr.source = '${source}' AND pr.pair_key = ${key})` : '';
  return `
    SELECT '${PAIR_SOURCES.shadow}' AS source, s.email_id AS pair_key, NULL AS run_id, s.mailbox_id, s.category,
           COALESCE(e.subject, '') AS subject, COALESCE(e.text_body, '') AS customer, d.body AS draft, r.text_body AS reply
      FROM shadow_evidence s JOIN emails e ON e.id = s.email_id JOIN drafts d ON d.id = s.draft_id
      JOIN outside_replies r ON r.mailbox_id = s.mailbox_id AND r.message_key = SHA2(s.reply_message_id, 256)
     WHERE 1 = 1 ${only(PAIR_SOURCES.shadow, 's.email_id')}
    UNION ALL
    SELECT '${PAIR_SOURCES.replay}', CONCAT(x.run_id, ':', x.pair_id), x.run_id, run.mailbox_id, x.category,
           c.subject, c.body, x.draft_body, rm.body
      FROM replay_results x JOIN replay_pairs p ON p.run_id = x.run_id AND p.pair_id = x.pair_id
      JOIN replay_runs run ON run.id = x.run_id
      JOIN replay_messages c ON c.run_id = x.run_id AND c.message_key = x.pair_id
      JOIN replay_messages rm ON rm.run_id = x.run_id AND rm.message_key = p.reply_key
     WHERE x.state = '${REPLAY_RESULT_STATE.measured}' AND x.draft_body IS NOT NULL ${only(PAIR_SOURCES.replay, "CONCAT(x.run_id, ':', x.pair_id)")}`;
}

export function createMariaDbPairRatings(pool: Pool): PairRatingStore {
  return {
    async nextUnrated() {
      const rows = await query<Array<Record<string, unknown>>>(
        pool,
        'choosing a pair to rate',
        `SELECT * FROM (${pairsSql(true)}) t ORDER BY RAND() LIMIT 1`,
      );
      const r = rows[0];
      if (!r) return null;
      return {
        source: r.source as PairSource,
        pairKey: r.pair_key as string,
        runId: (r.run_id as string | null) ?? null,
        mailboxId: r.mailbox_id as string,
        category: r.category as string,
        subject: r.subject as string,
        customer: r.customer as string,
        draft: r.draft as string,
        reply: r.reply as string,
      };
    },

    async rate({ source, pairKey, rating, by }) {
      const known = await query<Array<{ run_id: string | null }>>(
        pool,
        'finding the pair to rate',
        `SELECT run_id FROM (${pairsSql(false)}) t WHERE t.source = ? AND t.pair_key = ? LIMIT 1`,
        [source, pairKey],
      );
      if (known.length === 0) return false;
      await query(
        pool,
        'rating a pair',
        `INSERT INTO pair_ratings (source, pair_key, run_id, rating, rated_by) VALUES (?, ?, ?, ?, ?)
         ON DUPLICATE KEY UPDATE rating = VALUES(rating), rated_by = VALUES(rated_by), rated_at = NOW(3)`,
        [source, pairKey, known[0]!.run_id ?? null, rating, by.slice(0, 191)],
      );
      return true;
    },

    async counts() {
      const rows = await query<Array<{ rated: number | bigint; total: number | bigint }>>(
        pool,
        'counting rated pairs',
        `SELECT (SELECT COUNT(*) FROM pair_ratings) AS rated, (SELECT COUNT(*) FROM (${pairsSql(false)}) t) AS total`,
      );
      const rated = Number(rows[0]?.rated ?? 0);
      return { rated, unrated: Math.max(0, Number(rows[0]?.total ?? 0) - rated) };
    },
  };
}
