import { FAILURE_TYPES } from '../platform/contract';
import { createHash } from 'node:crypto';
import { DRAFT_STATUS } from '../drafting';
import { NEEDS_PERSON_STATUSES, SEND_STATUS, STATUS, INTAKE_STATUSES, type EmailStatus } from './email-status';
import type { Priority, TriageClass, TriageVerdict } from '../triage';
import { PermanentError } from '../platform/errors';
import { DEFAULT_MAILBOX_ID } from '../mailboxes';
import type { EmailRecord, MessageStore, NewRawEmail, OversizedEmail, ParsedEmail, SendSnapshot } from './email-stores.port';
import { MAX_STORED_TEXT_CHARS, RAW_CHUNK_BYTES } from '../platform/limits.mariadb';
import { classifyDbError, query, sqlList, type Pool } from '../platform/pool.mariadb';

/** At most `max` characters (a column's length), for values a sender controls. */
const fit = (value: string | null, max: number): string | null => (value === null ? null : value.slice(0, max));

interface EmailRow {
  id: string;
  mailbox: string | null;
  mailbox_id: string | null;
  status: EmailStatus;
  history_only: number;
  priority: Priority;
  message_id: string | null;
  in_reply_to: string | null;
  references_header: string | null;
  thread_id: string | null;
  from_address: string | null;
  from_name: string | null;
  reply_to_address: string | null;
  reply_to_name: string | null;
  to_addresses: string | null;
  cc_addresses: string | null;
  subject: string | null;
  text_body: string | null;
  has_html: number;
  attachments: string | null;
  sent_date: Date | null;
  raw_size: number;
  triage_class: TriageClass | null;
  status_reason: string | null;
  case_id: string | null;
}

/** The send that matters most first: a reply that left (or may have) outranks a failed try. */
const SEND_RANK = sqlList([
  SEND_STATUS.sent,
  SEND_STATUS.bounced,
  SEND_STATUS.inDoubt,
  SEND_STATUS.sending,
  SEND_STATUS.pending,
  SEND_STATUS.failed,
]);

/**
 * Writes the raw bytes as one row (small mail) or a first chunk plus parts, in one transaction:
 * a crash half-way leaves nothing, so a retry writes it all again. Returns false when stored already.
 */
async function saveRawChunks(pool: Pool, emailId: string, raw: Buffer): Promise<boolean> {
  const sha = createHash('sha256').update(raw).digest('hex');
  const chunks = Math.max(1, Math.ceil(raw.length / RAW_CHUNK_BYTES));
  const chunk = (i: number) => raw.subarray(i * RAW_CHUNK_BYTES, (i + 1) * RAW_CHUNK_BYTES);
  if (chunks === 1) {
    const res = await query<{ affectedRows: number }>(
      pool,
      'saving the raw message',
      `INSERT IGNORE INTO raw_messages (email_id, raw, size, sha256, chunks) VALUES (?, ?, ?, ?, 1)`,
      [emailId, raw, raw.length, sha],
    );
    return res.affectedRows > 0;
  }
  let conn;
  try {
    conn = await pool.getConnection();
  } catch (err) {
    throw classifyDbError(err, 'saving the raw message');
  }
  try {
    await conn.beginTransaction();
    const res = await query<{ affectedRows: number }>(
      conn,
      'saving the raw message',
      `INSERT IGNORE INTO raw_messages (email_id, raw, size, sha256, chunks) VALUES (?, ?, ?, ?, ?)`,
      [emailId, chunk(0), raw.length, sha, chunks],
    );
    if (res.affectedRows > 0) {
      for (let i = 1; i < chunks; i++) {
        await query(
          conn,
          `saving part ${i + 1} of ${chunks} of the raw message`,
          'REPLACE INTO raw_message_parts (email_id, seq, data) VALUES (?, ?, ?)',
          [emailId, i, chunk(i)],
        );
      }
    }
    await conn.commit();
    return res.affectedRows > 0;
  } catch (err) {
    await conn.rollback().catch(() => undefined);
    throw classifyDbError(err, 'saving the raw message');
  } finally {
    await conn.release().catch(() => undefined);
  }
}

export function createMariaDbMessageStore(pool: Pool): MessageStore {
  const writeStatus = async (emailId: string, status: EmailStatus, reason?: string): Promise<void> => {
    await query(
      pool,
      `setting status ${status}`,
      // Assignments run left to right: compare with the old status before overwriting it. A sent
      // email stays sent: a late attempt or a reset run can never move it backwards.
      `UPDATE emails SET status_changed_at = IF(status = ?, status_changed_at, CURRENT_TIMESTAMP(3)),
         status_reason = IF(status = '${STATUS.sent}' AND ? <> '${STATUS.sent}', status_reason, COALESCE(?, status_reason)),
         status = IF(status = '${STATUS.sent}', '${STATUS.sent}', ?)
       WHERE id = ?`,
      [status, status, reason?.slice(0, 2000) ?? null, status, emailId],
    );
  };
  /** The stored status, the send that matters most and the newest draft version, in one round trip. */
  const snapshot = async (emailId: string) => {
    const rows = await query<
      Array<{ stored: EmailStatus | null; draft_id: string | null; status: string | null; message_id: string | null; v: number | null }>
    >(
      pool,
      'reading the status, sends and draft versions of an email',
      // The send that matters most: a reply that left (or may have) outranks a failed try.
      `SELECT (SELECT status FROM emails WHERE id = ?) AS stored, s.draft_id, s.status, s.message_id,
              (SELECT MAX(version) FROM drafts WHERE email_id = ?) AS v
         FROM (SELECT 1) one
         LEFT JOIN (SELECT draft_id, status, message_id FROM send_attempts WHERE email_id = ?
                    ORDER BY FIELD(status, ${SEND_RANK}), updated_at DESC LIMIT 1) s ON TRUE`,
      [emailId, emailId, emailId],
    );
    const s = rows[0];
    return {
      stored: s?.stored ?? null,
      send: s?.draft_id ? { draftId: s.draft_id, status: s.status as string, messageId: s.message_id as string } : null,
      maxDraftVersion: Number(s?.v ?? 0),
    };
  };
  return {
    async saveRaw(email: NewRawEmail): Promise<boolean> {
      const stored = await saveRawChunks(pool, email.emailId, email.raw);
      await query(
        pool,
        'recording the fetched email',
        `INSERT INTO emails (id, source, mailbox_id, mailbox, uid_validity, uid, history_only, status, raw_size)
         VALUES (?, ?, ?, ?, ?, ?, ?, '${STATUS.fetched}', ?)
         ON DUPLICATE KEY UPDATE raw_size = VALUES(raw_size)`,
        [
          email.emailId,
          email.source,
          email.mailboxId ?? DEFAULT_MAILBOX_ID,
          email.mailbox ?? null,
          email.uidValidity ?? null,
          email.uid ?? null,
          email.historyOnly ? 1 : 0,
          email.raw.length,
        ],
      );
      return stored;
    },

    async saveOversized(email: OversizedEmail): Promise<void> {
      // A stub with what is known without downloading: the workflow records the end (failed).
      await query(
        pool,
        'recording the oversized email',
        `INSERT INTO emails (id, source, mailbox_id, mailbox, uid_validity, uid, history_only, status, raw_size, subject, from_address, status_reason)
         VALUES (?, ?, ?, ?, ?, ?, ?, '${STATUS.fetched}', ?, ?, ?, 'too_large')
         ON DUPLICATE KEY UPDATE raw_size = VALUES(raw_size), status_reason = 'too_large'`,
        [
          email.emailId,
          email.source,
          email.mailboxId ?? DEFAULT_MAILBOX_ID,
          email.mailbox ?? null,
          email.uidValidity ?? null,
          email.uid ?? null,
          email.historyOnly ? 1 : 0,
          email.size,
          email.subject?.slice(0, 2000) ?? null,
          email.from?.slice(0, 320) ?? null,
        ],
      );
    },

    async getRaw(emailId: string): Promise<Buffer | null> {
      const rows = await query<Array<{ raw: Buffer; size: number; chunks: number }>>(
        pool,
        'reading the raw message',
        'SELECT raw, size, chunks FROM raw_messages WHERE email_id = ?',
        [emailId],
      );
      const row = rows[0];
      if (!row) return null;
      if (row.chunks <= 1) return row.raw;
      const parts = await query<Array<{ data: Buffer }>>(
        pool,
        'reading the raw message parts',
        'SELECT data FROM raw_message_parts WHERE email_id = ? ORDER BY seq',
        [emailId],
      );
      const raw = Buffer.concat([row.raw, ...parts.map((p) => p.data)]);
      if (parts.length !== row.chunks - 1 || raw.length !== row.size) {
        throw new PermanentError(
          `stored message ${emailId} is incomplete: ${parts.length + 1} of ${row.chunks} chunks, ${raw.length} of ${row.size} bytes`,
          FAILURE_TYPES.rawIncomplete,
        );
      }
      return raw;
    },

    async saveParsed(emailId: string, p: ParsedEmail, also: { account: string; triage: TriageVerdict | null }): Promise<void> {
      const verdict = also.triage;
      await query(
        pool,
        'saving the parsed email',
        // Assignments run left to right: the reason compares with the old triage class before it is overwritten.
        // Without a verdict the reason of an earlier verdict goes too; other reasons (too_large) stay.
        `UPDATE emails SET message_id = ?, in_reply_to = ?, references_header = ?, thread_id = ?,
           from_address = ?, from_name = ?, reply_to_address = ?, reply_to_name = ?, to_addresses = ?,
           cc_addresses = ?, subject = ?, text_body = ?, has_html = ?, attachments = ?, sent_date = ?, priority = ?,
           account = ?, status_reason = IF(?, ?, IF(triage_class IS NULL, status_reason, NULL)), triage_class = ?
         WHERE id = ?`,
        [
          // Headers are the sender's to write: a display name or subject longer than its column is
          // cut to fit (the raw message keeps the whole), never a reason to fail the email.
          fit(p.messageId, 998),
          fit(p.inReplyTo, 998),
          p.references.join(' ').slice(0, 16_000),
          p.threadId,
          fit(p.from?.address ?? null, 320),
          fit(p.from?.name ?? null, 255),
          fit(p.replyTo?.address ?? null, 320),
          fit(p.replyTo?.name ?? null, 255),
          JSON.stringify(p.to.slice(0, 100)),
          JSON.stringify(p.cc.slice(0, 100)),
          p.subject.slice(0, 16_000),
          // Enough for any draft; keeps one statement far below max_allowed_packet and MEDIUMTEXT.
          p.text.slice(0, MAX_STORED_TEXT_CHARS),
          p.hasHtml ? 1 : 0,
          JSON.stringify(p.attachments),
          p.date,
          p.priority,
          also.account,
          verdict ? 1 : 0,
          verdict ? `${verdict.class}: ${verdict.reason}`.slice(0, 500) : null,
          verdict?.class ?? null,
          emailId,
        ],
      );
    },

    async getEmail(emailId: string): Promise<EmailRecord | null> {
      const rows = await query<EmailRow[]>(pool, 'reading an email', 'SELECT * FROM emails WHERE id = ?', [emailId]);
      const r = rows[0];
      if (!r) return null;
      const addr = (address: string | null, name: string | null) => (address ? { address, name: name ?? '' } : null);
      return {
        id: r.id,
        mailbox: r.mailbox,
        mailboxId: r.mailbox_id ?? DEFAULT_MAILBOX_ID,
        status: r.status,
        historyOnly: r.history_only === 1,
        rawSize: r.raw_size,
        messageId: r.message_id,
        inReplyTo: r.in_reply_to,
        references: r.references_header ? r.references_header.split(' ').filter(Boolean) : [],
        threadId: r.thread_id ?? r.id,
        from: addr(r.from_address, r.from_name),
        replyTo: addr(r.reply_to_address, r.reply_to_name),
        to: r.to_addresses ? (JSON.parse(r.to_addresses) as EmailRecord['to']) : [],
        cc: r.cc_addresses ? (JSON.parse(r.cc_addresses) as EmailRecord['cc']) : [],
        subject: r.subject ?? '',
        text: r.text_body ?? '',
        hasHtml: r.has_html === 1,
        date: r.sent_date,
        attachments: r.attachments ? (JSON.parse(r.attachments) as EmailRecord['attachments']) : [],
        priority: r.priority,
        triageClass: r.triage_class,
        statusReason: r.status_reason,
        caseId: r.case_id,
      };
    },

    async statusOf(emailId: string): Promise<EmailStatus | null> {
      const rows = await query<Array<{ status: EmailStatus }>>(pool, 'reading an email status', 'SELECT status FROM emails WHERE id = ?', [
        emailId,
      ]);
      return rows[0]?.status ?? null;
    },

    async findThreadId(messageIds: string[], account?: string): Promise<string | null> {
      if (messageIds.length === 0) return null;
      const rows = await query<Array<{ thread_id: string }>>(
        pool,
        'looking up the thread',
        `SELECT thread_id FROM emails WHERE message_id IN (${messageIds.map(() => '?').join(',')}) AND thread_id IS NOT NULL
           ${account === undefined ? '' : 'AND account = ?'}
         ORDER BY created_at LIMIT 1`,
        account === undefined ? messageIds : [...messageIds, account],
      );
      return rows[0]?.thread_id ?? null;
    },

    async threadParticipants(threadId: string, account: string): Promise<string[]> {
      // The thread's emails and our sent replies in it, in one round trip (a reply adds its recipient as `to_address`).
      const rows = await query<
        Array<{
          from_address: string | null;
          reply_to_address: string | null;
          to_addresses: string | null;
          cc_addresses: string | null;
          to_address: string | null;
        }>
      >(
        pool,
        'reading the thread participants',
        `SELECT from_address, reply_to_address, to_addresses, cc_addresses, NULL AS to_address
           FROM emails WHERE thread_id = ? AND account = ?
         UNION ALL
         SELECT NULL, NULL, NULL, NULL, d.to_address FROM drafts d JOIN emails e ON e.id = d.email_id
           WHERE e.thread_id = ? AND e.account = ? AND d.status = '${DRAFT_STATUS.sent}'`,
        [threadId, account, threadId, account],
      );
      const list = (json: string | null): string[] => {
        try {
          return json ? (JSON.parse(json) as Array<{ address?: unknown }>).map((a) => String(a.address ?? '')) : [];
        } catch {
          return [];
        }
      };
      const all = rows.flatMap((r) => [
        r.from_address ?? '',
        r.reply_to_address ?? '',
        ...list(r.to_addresses),
        ...list(r.cc_addresses),
        r.to_address ?? '',
      ]);
      return [...new Set(all.map((a) => a.trim().toLowerCase()).filter((a) => a.length > 0))];
    },

    async setStatus(emailId: string, status: EmailStatus, reason?: string): Promise<EmailStatus | null> {
      await writeStatus(emailId, status, reason);
      const rows = await query<Array<{ status: EmailStatus }>>(pool, 'reading the status', 'SELECT status FROM emails WHERE id = ?', [
        emailId,
      ]);
      return rows[0]?.status ?? null;
    },

    async sendSnapshot(emailId: string): Promise<{ send: SendSnapshot | null; maxDraftVersion: number }> {
      const { send, maxDraftVersion } = await snapshot(emailId);
      return { send, maxDraftVersion };
    },

    async moveStatus(emailId: string, status: EmailStatus, reason: string) {
      await writeStatus(emailId, status, reason);
      return snapshot(emailId);
    },

    async countByStatus(): Promise<Record<string, number>> {
      const rows = await query<Array<{ status: string; n: number }>>(
        pool,
        'counting emails',
        'SELECT status, COUNT(*) AS n FROM emails GROUP BY status',
      );
      return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    },

    async setIndexState(emailId: string, state: 'partial' | 'complete'): Promise<void> {
      await query(pool, 'recording the index state', 'UPDATE emails SET index_state = ? WHERE id = ?', [state, emailId]);
    },

    async waitingInThread(threadId: string, exceptEmailId: string): Promise<string[]> {
      const rows = await query<Array<{ id: string }>>(
        pool,
        'finding waiting drafts of the thread',
        `SELECT id FROM emails WHERE thread_id = ? AND id <> ? AND status IN (${sqlList(NEEDS_PERSON_STATUSES)})`,
        [threadId, exceptEmailId],
      );
      return rows.map((r) => r.id);
    },

    async idsNeedingReindex(limit: number): Promise<string[]> {
      const rows = await query<Array<{ id: string }>>(
        pool,
        'listing partially indexed emails',
        `SELECT id FROM emails WHERE index_state = 'partial' ORDER BY updated_at LIMIT ?`,
        [limit],
      );
      return rows.map((r) => r.id);
    },

    async countInIntake(): Promise<number> {
      const rows = await query<Array<{ n: number }>>(
        pool,
        'counting the backlog',
        `SELECT COUNT(*) AS n FROM emails WHERE status IN (${INTAKE_STATUSES.map(() => '?').join(',')})`,
        [...INTAKE_STATUSES],
      );
      return Number(rows[0]?.n ?? 0);
    },

    async countStoredAbove(mailbox: string, uidValidity: number, afterUid: number, mailboxId?: string): Promise<number> {
      const rows = await query<Array<{ n: number }>>(
        pool,
        'counting stored messages of the poll run',
        `SELECT COUNT(*) AS n FROM emails WHERE mailbox = ? AND uid_validity = ? AND uid > ?${mailboxId === undefined ? '' : ' AND mailbox_id = ?'}`,
        mailboxId === undefined ? [mailbox, uidValidity, afterUid] : [mailbox, uidValidity, afterUid, mailboxId],
      );
      return Number(rows[0]?.n ?? 0);
    },
  };
}
