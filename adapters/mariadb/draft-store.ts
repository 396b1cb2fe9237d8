import type { DraftRecord, DraftStatus, DraftStore, NewDraft } from '../../ports/store';
import { query, type Pool } from './pool';

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
      // A decided draft is never overwritten by a late retry of the draft step.
      await query(
        pool,
        'saving a draft',
        `INSERT INTO drafts (id, email_id, version, subject, body, language, confidence, drafter, model,
           prompt_version, context_ids, flags, to_address, to_name)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON DUPLICATE KEY UPDATE
           subject = IF(status = 'awaiting_approval', VALUES(subject), subject),
           body = IF(status = 'awaiting_approval', VALUES(body), body),
           language = IF(status = 'awaiting_approval', VALUES(language), language),
           confidence = IF(status = 'awaiting_approval', VALUES(confidence), confidence),
           model = IF(status = 'awaiting_approval', VALUES(model), model),
           context_ids = IF(status = 'awaiting_approval', VALUES(context_ids), context_ids),
           flags = IF(status = 'awaiting_approval', VALUES(flags), flags)`,
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
          d.to.address,
          d.to.name,
        ],
      );
      const saved = await get(d.id);
      if (!saved) throw new Error(`draft ${d.id} vanished right after it was saved`);
      return saved;
    },
    async approve(draftId: string, by: string, editedBody: string | null, editDistance: number): Promise<void> {
      await query(
        pool,
        'approving a draft',
        `UPDATE drafts SET status = 'approved', decided_by = ?, decided_at = CURRENT_TIMESTAMP(3), approved_body = COALESCE(?, body),
           edit_distance = ?
         WHERE id = ? AND status = 'awaiting_approval'`,
        [by, editedBody, editDistance, draftId],
      );
    },
    async reject(draftId: string, by: string, reason: string): Promise<void> {
      await query(
        pool,
        'rejecting a draft',
        `UPDATE drafts SET status = 'rejected', decided_by = ?, decided_at = CURRENT_TIMESTAMP(3), decision_reason = ?
         WHERE id = ? AND status = 'awaiting_approval'`,
        [by, reason, draftId],
      );
    },
    async markSent(draftId: string): Promise<void> {
      await query(pool, 'marking a draft sent', `UPDATE drafts SET status = 'sent' WHERE id = ? AND status = 'approved'`, [draftId]);
    },
    async markStale(emailId: string, version: number): Promise<void> {
      await query(
        pool,
        'marking older drafts stale',
        `UPDATE drafts SET status = 'stale' WHERE email_id = ? AND version < ? AND status = 'awaiting_approval'`,
        [emailId, version],
      );
    },
    async listAwaiting(): Promise<DraftRecord[]> {
      const rows = await query<DraftRow[]>(
        pool,
        'listing drafts',
        `SELECT * FROM drafts WHERE status = 'awaiting_approval' ORDER BY created_at`,
      );
      return rows.map(toRecord);
    },
  };
}
