import type { SendAttemptRecord, SendLedger } from '../../ports/store';
import { query, type Pool } from './pool';

interface SendRow {
  draft_id: string;
  email_id: string;
  message_id: string;
  status: SendAttemptRecord['status'];
  attempts: number;
  last_error: string | null;
  envelope: string | null;
  appended_to_sent: number;
}

export function createMariaDbSendLedger(pool: Pool): SendLedger {
  const get = async (draftId: string): Promise<SendAttemptRecord | null> => {
    const rows = await query<SendRow[]>(pool, 'reading a send attempt', 'SELECT * FROM send_attempts WHERE draft_id = ?', [draftId]);
    const r = rows[0];
    if (!r) return null;
    return {
      draftId: r.draft_id,
      emailId: r.email_id,
      messageId: r.message_id,
      status: r.status,
      attempts: r.attempts,
      lastError: r.last_error,
      envelope: r.envelope ? (JSON.parse(r.envelope) as SendAttemptRecord['envelope']) : null,
      appendedToSent: r.appended_to_sent === 1,
    };
  };
  return {
    get,
    async begin(draftId, emailId, messageId): Promise<SendAttemptRecord> {
      // One row per draft (unique draft_id); a sent row is never reopened.
      await query(
        pool,
        'recording a send attempt',
        `INSERT INTO send_attempts (draft_id, email_id, message_id, status, attempts) VALUES (?, ?, ?, 'pending', 1)
         ON DUPLICATE KEY UPDATE
           attempts = IF(status = 'sent', attempts, attempts + 1),
           status = IF(status = 'sent', 'sent', 'pending')`,
        [draftId, emailId, messageId],
      );
      const row = await get(draftId);
      if (!row) throw new Error(`send attempt for ${draftId} vanished right after it was written`);
      return row;
    },
    async markSending(draftId): Promise<void> {
      await query(
        pool,
        'recording the SMTP hand-over',
        `UPDATE send_attempts SET status = 'sending' WHERE draft_id = ? AND status <> 'sent'`,
        [draftId],
      );
    },
    async succeeded(draftId, envelope, response): Promise<void> {
      await query(
        pool,
        'recording a sent message',
        `UPDATE send_attempts SET status = 'sent', envelope = ?, smtp_response = ?, last_error = NULL, sent_at = CURRENT_TIMESTAMP(3)
         WHERE draft_id = ?`,
        [JSON.stringify(envelope), response.slice(0, 2000), draftId],
      );
    },
    async failed(draftId, error): Promise<void> {
      await query(
        pool,
        'recording a failed send',
        `UPDATE send_attempts SET status = 'failed', last_error = ? WHERE draft_id = ? AND status <> 'sent'`,
        [error.slice(0, 60_000), draftId],
      );
    },
    async failedSendsOlderThan(olderThanSeconds: number): Promise<string[]> {
      const rows = await query<Array<{ email_id: string }>>(
        pool,
        'finding failed sends',
        `SELECT s.email_id FROM send_attempts s JOIN emails e ON e.id = s.email_id
         WHERE s.status = 'failed' AND e.status = 'approved' AND s.updated_at < CURRENT_TIMESTAMP(3) - INTERVAL ? SECOND
         ORDER BY s.updated_at`,
        [olderThanSeconds],
      );
      return rows.map((r) => r.email_id);
    },
    async markAppended(draftId): Promise<void> {
      await query(pool, 'recording the Sent copy', 'UPDATE send_attempts SET appended_to_sent = 1 WHERE draft_id = ?', [draftId]);
    },
  };
}
