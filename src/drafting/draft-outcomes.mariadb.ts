/**
 * Writes `draft_outcomes` (migration 016): one row per decided draft, upserted on the draft id,
 * with the figures it is grouped by copied from the draft and its email at that moment. A draft an
 * automatic send approved is recorded like any other, its `decided_by` being `autonomy:<policy>`;
 * the autonomy record (src/autonomy/autonomy-store.mariadb.ts) leaves those out: no person judged them.
 */
import { DRAFT_FLAGS, DRAFT_OUTCOME, DRAFT_STATUS, type DraftOutcome } from './drafting.contract';
import { query, type Queryable } from '../platform/pool.mariadb';

const COLUMNS = `draft_id, email_id, outcome, edit_distance, changed_share, mailbox_id, category, language, drafter, model,
  prompt_version, no_relevant_context, decided_by, decided_at, guidance_version`;

/**
 * The row of draft `d` (with its email `e`). A reply a person wrote is counted against the
 * machine draft it replaced (`p`: the newest earlier non-human draft), never under the person's
 * name: the figures judge drafters, and the person's name is not a model.
 */
const SELECT_ROW = `d.id, d.email_id, ?, ?, ?, COALESCE(e.mailbox_id, 'default'),
  COALESCE(d.category, p.category, 'unknown'), COALESCE(p.language, d.language),
  IF(d.drafter = 'human', COALESCE(p.drafter, 'human'), d.drafter),
  IF(d.drafter = 'human', COALESCE(p.model, ''), d.model),
  IF(d.drafter = 'human', COALESCE(p.prompt_version, 'human'), d.prompt_version),
  IF(COALESCE(p.flags, d.flags, '') LIKE '%"${DRAFT_FLAGS.noRelevantContext}"%', 1, 0),
  d.decided_by, COALESCE(d.decided_at, CURRENT_TIMESTAMP(3)),
  IF(d.drafter = 'human', p.guidance_version, d.guidance_version)
  FROM drafts d
  LEFT JOIN emails e ON e.id = d.email_id
  LEFT JOIN drafts p ON d.drafter = 'human' AND p.email_id = d.email_id
    AND p.version = (SELECT MAX(q.version) FROM drafts q WHERE q.email_id = d.email_id AND q.version < d.version AND q.drafter <> 'human')`;

const UPSERT = `ON DUPLICATE KEY UPDATE outcome = VALUES(outcome), edit_distance = VALUES(edit_distance),
  changed_share = VALUES(changed_share), decided_by = VALUES(decided_by), decided_at = VALUES(decided_at)`;

export interface OutcomeMeasure {
  outcome: DraftOutcome;
  editDistance?: number | null;
  changedShare?: number | null;
}

/** Records (or corrects, on a retried activity) what became of one draft. */
export async function recordDraftOutcome(pool: Queryable, draftId: string, m: OutcomeMeasure): Promise<void> {
  await query(pool, 'recording a draft outcome', `INSERT INTO draft_outcomes (${COLUMNS}) SELECT ${SELECT_ROW} WHERE d.id = ? ${UPSERT}`, [
    m.outcome,
    m.editDistance ?? null,
    m.changedShare ?? null,
    draftId,
  ]);
}

/** Drafts of the email below `version` that a newer one replaced (now `stale`) become `redrafted`. */
export async function recordRedrafted(pool: Queryable, emailId: string, version: number): Promise<void> {
  await query(
    pool,
    'recording redrafted drafts',
    `INSERT INTO draft_outcomes (${COLUMNS}) SELECT ${SELECT_ROW}
     WHERE d.email_id = ? AND d.version < ? AND d.status = '${DRAFT_STATUS.stale}'
       AND NOT EXISTS (SELECT 1 FROM draft_outcomes o WHERE o.draft_id = d.id)`,
    [DRAFT_OUTCOME.redrafted, null, null, emailId, version],
  );
}
