import { PHASES_BEFORE_FINAL_DOT, type SendAttemptRecord, type SendLedger } from '../email-stores.port';
import { SEND_STATUS, STATUS } from '../email-status';
import { query, sqlList, type Pool } from '../../platform/pool.mariadb';

interface SendRow {
  draft_id: string;
  email_id: string;
  message_id: string;
  status: SendAttemptRecord['status'];
  phase: SendAttemptRecord['phase'];
  attempt_token: string | null;
  attempts: number;
  last_error: string | null;
  envelope: string | null;
  appended_to_sent: number;
  forced_by: string | null;
  force_key: string | null;
  resolved_by: string | null;
  created_at: Date;
  updated_at: Date;
}

function toRecord(r: SendRow): SendAttemptRecord {
  return {
    draftId: r.draft_id,
    emailId: r.email_id,
    messageId: r.message_id,
    status: r.status,
    phase: r.phase,
    attemptToken: r.attempt_token,
    attempts: r.attempts,
    lastError: r.last_error,
    envelope: r.envelope ? (JSON.parse(r.envelope) as SendAttemptRecord['envelope']) : null,
    appendedToSent: r.appended_to_sent === 1,
    forcedBy: r.forced_by,
    forceKey: r.force_key,
    resolvedBy: r.resolved_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** `phase IN (…)` for the phases before the final dot; the list is ours, never user input. */
const BEFORE_DOT = `(${PHASES_BEFORE_FINAL_DOT.map((p) => `'${p}'`).join(', ')})`;

/**
 * The send ledger on `send_attempts`. Every transition is one conditional UPDATE whose matched-row
 * count says whether it applied (the driver reports found rows), so two attempts racing for the
 * same draft can never both pass the final dot.
 */
export function createMariaDbSendLedger(pool: Pool): SendLedger {
  const get = async (draftId: string): Promise<SendAttemptRecord | null> => {
    const rows = await query<SendRow[]>(pool, 'reading a send attempt', 'SELECT * FROM send_attempts WHERE draft_id = ?', [draftId]);
    return rows[0] ? toRecord(rows[0]) : null;
  };
  const cas = async (what: string, sql: string, params: unknown[]): Promise<boolean> => {
    const res = await query<{ affectedRows: number }>(pool, what, sql, params);
    return res.affectedRows > 0;
  };
  return {
    get,
    async latestOfEmail(emailId) {
      const rows = await query<SendRow[]>(
        pool,
        'reading the latest send attempt',
        'SELECT * FROM send_attempts WHERE email_id = ? ORDER BY created_at DESC, id DESC LIMIT 1',
        [emailId],
      );
      return rows[0] ? toRecord(rows[0]) : null;
    },
    async ensure(draftId, emailId, messageId) {
      await query(
        pool,
        'recording a send attempt',
        `INSERT IGNORE INTO send_attempts (draft_id, email_id, message_id, status, attempts) VALUES (?, ?, ?, '${SEND_STATUS.pending}', 0)`,
        [draftId, emailId, messageId],
      );
      const row = await get(draftId);
      if (!row) throw new Error(`send attempt for ${draftId} vanished right after it was written`);
      return row;
    },
    async claimFirst(draftId, emailId, messageId, token) {
      const res = await query<{ affectedRows: number }>(
        pool,
        'claiming a first send',
        `INSERT IGNORE INTO send_attempts (draft_id, email_id, message_id, status, phase, attempt_token, attempts)
         VALUES (?, ?, ?, '${SEND_STATUS.sending}', 'claimed', ?, 1)`,
        [draftId, emailId, messageId, token],
      );
      if (res.affectedRows === 0) return null;
      // Exactly what the statement wrote (the times are the database's, within the same instant).
      const now = new Date();
      return {
        draftId,
        emailId,
        messageId,
        status: SEND_STATUS.sending,
        phase: 'claimed',
        attemptToken: token,
        attempts: 1,
        lastError: null,
        envelope: null,
        appendedToSent: false,
        forcedBy: null,
        forceKey: null,
        resolvedBy: null,
        createdAt: now,
        updatedAt: now,
      };
    },
    claim(draftId, token) {
      return cas(
        'claiming a send',
        `UPDATE send_attempts SET status = '${SEND_STATUS.sending}', phase = 'claimed', attempt_token = ?, attempts = attempts + 1
         WHERE draft_id = ? AND status IN (${sqlList([SEND_STATUS.pending, SEND_STATUS.failed])})`,
        [token, draftId],
      );
    },
    takeOver(draftId, staleToken, token) {
      return cas(
        'taking over an interrupted send',
        `UPDATE send_attempts SET phase = 'claimed', attempt_token = ?, attempts = attempts + 1,
           last_error = CONCAT('an earlier attempt stopped at ', COALESCE(phase, '?'), ' before the final dot; taken over')
         WHERE draft_id = ? AND status = '${SEND_STATUS.sending}' AND attempt_token <=> ? AND (phase IS NULL OR phase IN ${BEFORE_DOT})`,
        [token, draftId, staleToken],
      );
    },
    claimForced(draftId, token, by, key) {
      return cas(
        'forcing a send in doubt',
        `UPDATE send_attempts SET status = '${SEND_STATUS.sending}', phase = 'claimed', attempt_token = ?, attempts = attempts + 1,
           forced_by = ?, force_key = ?, forced_at = CURRENT_TIMESTAMP(3)
         WHERE draft_id = ? AND status = '${SEND_STATUS.inDoubt}' AND NOT (force_key <=> ?)`,
        [token, by, key, draftId, key],
      );
    },
    setPhase(draftId, token, phase) {
      return cas(
        'recording the SMTP phase',
        `UPDATE send_attempts SET phase = ? WHERE draft_id = ? AND status = '${SEND_STATUS.sending}' AND attempt_token = ?`,
        [phase, draftId, token],
      );
    },
    succeeded(draftId, envelope, response) {
      return cas(
        'recording a sent message',
        `UPDATE send_attempts SET status = '${SEND_STATUS.sent}', phase = 'data_end', envelope = ?, smtp_response = ?, last_error = NULL,
           sent_at = CURRENT_TIMESTAMP(3)
         WHERE draft_id = ? AND status IN (${sqlList([SEND_STATUS.pending, SEND_STATUS.sending, SEND_STATUS.failed, SEND_STATUS.inDoubt])})`,
        [JSON.stringify(envelope), response.slice(0, 2000), draftId],
      );
    },
    failed(draftId, token, phase, error) {
      return cas(
        'recording a failed send',
        `UPDATE send_attempts SET status = '${SEND_STATUS.failed}', phase = COALESCE(?, phase), last_error = ?
         WHERE draft_id = ? AND status = '${SEND_STATUS.sending}' AND attempt_token = ?`,
        [phase, error.slice(0, 60_000), draftId, token],
      );
    },
    markInDoubt(draftId, token, reason) {
      return cas(
        'recording a send in doubt',
        `UPDATE send_attempts SET status = '${SEND_STATUS.inDoubt}', last_error = ?, in_doubt_at = CURRENT_TIMESTAMP(3)
         WHERE draft_id = ? AND status = '${SEND_STATUS.sending}' AND attempt_token <=> ? AND phase IS NOT NULL AND phase NOT IN ${BEFORE_DOT}`,
        [reason.slice(0, 60_000), draftId, token],
      );
    },
    confirmSent(draftId, by, note) {
      return cas(
        'recording an operator’s confirmation',
        `UPDATE send_attempts SET status = '${SEND_STATUS.sent}', resolved_by = ?, resolution_note = ?, resolved_at = CURRENT_TIMESTAMP(3),
           sent_at = COALESCE(sent_at, CURRENT_TIMESTAMP(3))
         WHERE draft_id = ? AND status = '${SEND_STATUS.inDoubt}'`,
        [by, note, draftId],
      );
    },
    async failedSendsOlderThan(olderThanSeconds: number): Promise<string[]> {
      const rows = await query<Array<{ email_id: string }>>(
        pool,
        'finding failed sends',
        `SELECT s.email_id FROM send_attempts s JOIN emails e ON e.id = s.email_id
         WHERE s.status = '${SEND_STATUS.failed}' AND e.status = '${STATUS.approved}' AND s.updated_at < CURRENT_TIMESTAMP(3) - INTERVAL ? SECOND
         ORDER BY s.updated_at`,
        [olderThanSeconds],
      );
      return rows.map((r) => r.email_id);
    },
    async markAppended(draftId): Promise<void> {
      await query(pool, 'recording the Sent copy', 'UPDATE send_attempts SET appended_to_sent = 1 WHERE draft_id = ?', [draftId]);
    },
    async countByStatus() {
      const rows = await query<Array<{ status: string; n: number }>>(
        pool,
        'counting sends',
        'SELECT status, COUNT(*) AS n FROM send_attempts GROUP BY status',
      );
      return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    },
  };
}
