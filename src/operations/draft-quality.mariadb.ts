/**
 * Reads the draft quality figures (`draft_outcomes`, migration 016) and the knowledge-gap
 * candidates for `email-rag quality` and the review inbox's operations page. Every query is a
 * range on `decided_at` (or the drafts' creation time), bounded by the window.
 */
import { DRAFT_FLAGS, DRAFT_OUTCOME, type DraftOutcome } from '../drafting';
import {
  OPENING_CHARS,
  QUALITY_GROUPINGS,
  openingLines,
  type GapCandidate,
  type OutcomeCount,
  type QualityGrouping,
} from './draft-quality';
import { query, type Queryable } from '../platform/pool.mariadb';
import { NO_GUIDANCE } from '../guidance';

/** The column of each grouping; only these names ever reach the SQL text. */
const GROUP_COLUMN: Record<QualityGrouping, string> = {
  category: 'category',
  mailbox: 'mailbox_id',
  language: 'language',
  drafter: 'drafter',
  prompt: 'prompt_version',
  model: 'model',
  // Drafts written before guidance existed, or under none, form one group.
  guidance: `COALESCE(guidance_version, '${NO_GUIDANCE}')`,
};

/** Decided drafts since `since`, per group and outcome. */
export async function outcomeCounts(pool: Queryable, since: Date, by: QualityGrouping): Promise<OutcomeCount[]> {
  if (!QUALITY_GROUPINGS.includes(by)) throw new Error(`unknown grouping ${String(by)}`);
  const column = GROUP_COLUMN[by];
  const rows = await query<Array<{ g: string; outcome: DraftOutcome; n: number }>>(
    pool,
    'reading the draft outcomes',
    `SELECT ${column} AS g, outcome, COUNT(*) AS n FROM draft_outcomes WHERE decided_at >= ? GROUP BY g, outcome`,
    [since],
  );
  return rows.map((r) => ({ group: String(r.g), outcome: r.outcome, count: Number(r.n) }));
}

/** Decided drafts per day (UTC, `YYYY-MM-DD`) and outcome since `since`. */
export async function dailyOutcomes(pool: Queryable, since: Date): Promise<Array<{ day: string; outcome: DraftOutcome; count: number }>> {
  const rows = await query<Array<{ day: string; outcome: DraftOutcome; n: number }>>(
    pool,
    'reading the daily draft outcomes',
    `SELECT DATE_FORMAT(decided_at, '%Y-%m-%d') AS day, outcome, COUNT(*) AS n FROM draft_outcomes
     WHERE decided_at >= ? GROUP BY day, outcome ORDER BY day`,
    [since],
  );
  return rows.map((r) => ({ day: r.day, outcome: r.outcome, count: Number(r.n) }));
}

/** Outcomes recorded after `from` up to `to`, for the Prometheus counter (labels of bounded cardinality). */
export async function outcomesBetween(
  pool: Queryable,
  from: Date,
  to: Date,
): Promise<Array<{ outcome: DraftOutcome; mailbox: string; drafter: string; promptVersion: string; count: number }>> {
  const rows = await query<Array<{ outcome: DraftOutcome; mailbox_id: string; drafter: string; prompt_version: string; n: number }>>(
    pool,
    'reading the new draft outcomes',
    `SELECT outcome, mailbox_id, drafter, prompt_version, COUNT(*) AS n FROM draft_outcomes
     WHERE decided_at > ? AND decided_at <= ? GROUP BY outcome, mailbox_id, drafter, prompt_version`,
    [from, to],
  );
  return rows.map((r) => ({
    outcome: r.outcome,
    mailbox: r.mailbox_id,
    drafter: r.drafter,
    promptVersion: r.prompt_version,
    count: Number(r.n),
  }));
}

/**
 * Emails since `since` whose draft found no relevant source (the drafter's flag) or whose draft
 * was heavily edited or rejected: the questions the knowledge did not answer. One row per email,
 * newest first; the subject and the opening of the mail (quoted lines left out).
 */
export async function gapCandidates(pool: Queryable, since: Date, limit = 500): Promise<GapCandidate[]> {
  const rows = await query<
    Array<{ email_id: string; subject: string | null; opening: string | null; at: Date; no_context: number; outcome: string | null }>
  >(
    pool,
    'reading the knowledge gaps',
    `SELECT x.email_id, e.subject, LEFT(e.text_body, ${OPENING_CHARS * 4}) AS opening, MAX(x.at) AS at,
            MAX(x.no_context) AS no_context, MAX(x.outcome) AS outcome
     FROM (
       SELECT d.email_id, d.created_at AS at, 1 AS no_context, NULL AS outcome FROM drafts d
       WHERE d.created_at >= ? AND d.flags LIKE '%"${DRAFT_FLAGS.noRelevantContext}"%'
       UNION ALL
       SELECT o.email_id, o.decided_at, o.no_relevant_context, o.outcome FROM draft_outcomes o
       WHERE o.decided_at >= ? AND o.outcome IN ('${DRAFT_OUTCOME.heavyEdit}', '${DRAFT_OUTCOME.rejected}')
     ) x JOIN emails e ON e.id = x.email_id
     GROUP BY x.email_id, e.subject, opening ORDER BY at DESC, x.email_id LIMIT ${Math.floor(limit)}`,
    [since, since],
  );
  return rows.map((r) => {
    const reasons: GapCandidate['reasons'] = [];
    if (Number(r.no_context) === 1) reasons.push(DRAFT_FLAGS.noRelevantContext);
    if (r.outcome === DRAFT_OUTCOME.heavyEdit || r.outcome === DRAFT_OUTCOME.rejected) reasons.push(r.outcome);
    return { emailId: r.email_id, subject: r.subject ?? '', opening: openingLines(r.opening ?? ''), at: new Date(r.at), reasons };
  });
}
