import { DRAFT_STATUS, type DraftStatus } from '../../drafting';
import { recordDraftOutcome, recordRedrafted } from '../../drafting/index.adapters';
import type { DraftRecord, DraftStore, NewDraft } from '../email-stores.port';
import { query, type Pool } from '../../platform/pool.mariadb';

interface DraftRow {
  id: string;
  email_id: string;
  version: number;
  status: DraftStatus;
  subject: string;
  body: string;
  language: string;
  confidence: number;
  drafter: string;
  model: string;
  prompt_version: string;
  context_ids: string;
  flags: string | null;
  category: string | null;
  answers_email_ids: string | null;
  guidance_version: string | null;
  to_address: string;
  to_name: string;
  approved_body: string | null;
  decided_by: string | null;
  decision_reason: string | null;
  created_at: Date;
}

function toRecord(r: DraftRow): DraftRecord {
  return {
    id: r.id,
    emailId: r.email_id,
    version: r.version,
    status: r.status,
    subject: r.subject,
    body: r.body,
    language: r.language,
    confidence: r.confidence,
    drafter: r.drafter,
    model: r.model,
    promptVersion: r.prompt_version,
    contextIds: JSON.parse(r.context_ids) as string[],
    flags: r.flags ? (JSON.parse(r.flags) as string[]) : [],
    category: r.category ?? null,
    answersEmailIds: r.answers_email_ids ? (JSON.parse(r.answers_email_ids) as string[]) : [],
    guidanceVersion: r.guidance_version ?? null,
    to: { address: r.to_address, name: r.to_name },
    approvedBody: r.approved_body,
    decidedBy: r.decided_by,
    decisionReason: r.decision_reason,
    createdAt: r.created_at,
  };
}

export function createMariaDbDraftStore(pool: Pool): DraftStore {
  const get = async (draftId: string): Promise<DraftRecord | null> => {
    const rows = await query<DraftRow[]>(pool, 'reading a draft', 'SELECT * FROM drafts WHERE id = ?', [draftId]);
    return rows[0] ? toRecord(rows[0]) : null;
  };
  return {
    get,
    async save(d: NewDraft): Promise<DraftRecord> {
      // A decided draft is never overwritten by a late retry of the draft step. RETURNING gives
      // the row as stored after the upsert (a decided one unchanged): no second round trip to read it.
      const undecided = `status = '${DRAFT_STATUS.awaitingApproval}'`;
      const rows = await query<DraftRow[]>(
        pool,
        'saving a draft',
        `INSERT INTO drafts (id, email_id, version, subject, body, language, confidence, drafter, model,
           prompt_version, context_ids, flags, category, answers_email_ids, to_address, to_name, guidance_version)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON DUPLICATE KEY UPDATE
           subject = IF(${undecided}, VALUES(subject), subject),
           body = IF(${undecided}, VALUES(body), body),
           language = IF(${undecided}, VALUES(language), language),
           confidence = IF(${undecided}, VALUES(confidence), confidence),
           model = IF(${undecided}, VALUES(model), model),
           context_ids = IF(${undecided}, VALUES(context_ids), context_ids),
           flags = IF(${undecided}, VALUES(flags), flags),
           category = IF(${undecided}, VALUES(category), category),
           answers_email_ids = IF(${undecided}, VALUES(answers_email_ids), answers_email_ids),
           guidance_version = IF(${undecided}, VALUES(guidance_version), guidance_version)
         RETURNING *`,
        [
          d.id,
          d.emailId,
          d.version,
          d.subject,
          d.body,
          d.language,
          d.confidence,
          d.drafter,
          d.model,
          d.promptVersion,
          JSON.stringify(d.contextIds),
          JSON.stringify(d.flags),
          d.category?.slice(0, 100) ?? null,
          d.answersEmailIds && d.answersEmailIds.length > 0 ? JSON.stringify(d.answersEmailIds) : null,
          d.to.address,
          d.to.name,
          d.guidanceVersion ?? null,
        ],
      );
      if (!rows[0]) throw new Error(`draft ${d.id} vanished right after it was saved`);
      return toRecord(rows[0]);
    },
    async approve(draftId: string, by: string, editedBody: string | null, editDistance: number): Promise<void> {
      await query(
        pool,
        'approving a draft',
        `UPDATE drafts SET status = '${DRAFT_STATUS.approved}', decided_by = ?, decided_at = CURRENT_TIMESTAMP(3), approved_body = COALESCE(?, body),
           edit_distance = ?
         WHERE id = ? AND status = '${DRAFT_STATUS.awaitingApproval}'`,
        [by, editedBody, editDistance, draftId],
      );
    },
    async reject(draftId: string, by: string, reason: string): Promise<void> {
      await query(
        pool,
        'rejecting a draft',
        `UPDATE drafts SET status = '${DRAFT_STATUS.rejected}', decided_by = ?, decided_at = CURRENT_TIMESTAMP(3), decision_reason = ?
         WHERE id = ? AND status = '${DRAFT_STATUS.awaitingApproval}'`,
        [by, reason, draftId],
      );
    },
    recordOutcome(draftId, outcome): Promise<void> {
      return recordDraftOutcome(pool, draftId, outcome);
    },
    async markSent(draftId: string): Promise<void> {
      await query(
        pool,
        'marking a draft sent',
        `UPDATE drafts SET status = '${DRAFT_STATUS.sent}' WHERE id = ? AND status = '${DRAFT_STATUS.approved}'`,
        [draftId],
      );
    },
    async markStale(emailId: string, version: number): Promise<void> {
      await query(
        pool,
        'marking older drafts stale',
        `UPDATE drafts SET status = '${DRAFT_STATUS.stale}' WHERE email_id = ? AND version < ? AND status = '${DRAFT_STATUS.awaitingApproval}'`,
        [emailId, version],
      );
      // A retried step finds its drafts stale already: recording is idempotent either way.
      await recordRedrafted(pool, emailId, version);
    },
    async withdraw(emailId: string): Promise<number> {
      const r = await query<{ affectedRows: number }>(
        pool,
        'withdrawing the drafts of a mail answered elsewhere',
        `UPDATE drafts SET status = '${DRAFT_STATUS.withdrawn}'
          WHERE email_id = ? AND status IN ('${DRAFT_STATUS.awaitingApproval}', '${DRAFT_STATUS.approved}')`,
        [emailId],
      );
      return r.affectedRows;
    },
    async claimReplySlot(emailId: string, address: string, seconds: number): Promise<number> {
      // Slots older than the window count for nothing: the address's own are pruned as it writes again.
      await query(
        pool,
        'pruning old reply slots',
        'DELETE FROM reply_slots WHERE address = ? AND created_at < NOW(3) - INTERVAL ? SECOND',
        [address, 2 * seconds],
      );
      await query(pool, 'taking a reply slot', 'INSERT IGNORE INTO reply_slots (email_id, address) VALUES (?, ?)', [emailId, address]);
      // Rank by (created_at, email_id) within the window before this email's own slot.
      const rows = await query<Array<{ n: number | bigint }>>(
        pool,
        'counting the earlier reply slots',
        `SELECT COUNT(*) AS n FROM reply_slots s JOIN reply_slots me ON me.email_id = ?
          WHERE s.address = me.address AND s.created_at > me.created_at - INTERVAL ? SECOND
            AND (s.created_at < me.created_at OR (s.created_at = me.created_at AND s.email_id < me.email_id))`,
        [emailId, seconds],
      );
      return Number(rows[0]?.n ?? 0);
    },
    async releaseReplySlot(emailId: string): Promise<void> {
      await query(pool, 'giving a reply slot back', 'DELETE FROM reply_slots WHERE email_id = ?', [emailId]);
    },
    async listAwaiting(): Promise<DraftRecord[]> {
      const rows = await query<DraftRow[]>(
        pool,
        'listing drafts',
        `SELECT * FROM drafts WHERE status = '${DRAFT_STATUS.awaitingApproval}' ORDER BY created_at`,
      );
      return rows.map(toRecord);
    },
  };
}
