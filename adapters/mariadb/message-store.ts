import { createHash } from 'node:crypto';
import type { EmailStatus, Priority } from '../../lib/domain';
import type { EmailRecord, MessageStore, NewRawEmail, ParsedEmail } from '../../ports/store';
import { query, type Pool } from './pool';

interface EmailRow {
  id: string;
  mailbox: string | null;
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
}

const UNFINISHED: EmailStatus[] = ['fetched', 'parsed', 'indexed', 'partially_indexed', 'drafted', 'approved'];

export function createMariaDbMessageStore(pool: Pool): MessageStore {
  return {
    async saveRaw(email: NewRawEmail): Promise<boolean> {
      const sha = createHash('sha256').update(email.raw).digest('hex');
      const res = await query<{ affectedRows: number }>(
        pool,
        'saving the raw message',
        `INSERT IGNORE INTO raw_messages (email_id, raw, size, sha256) VALUES (?, ?, ?, ?)`,
        [email.emailId, email.raw, email.raw.length, sha],
      );
      await query(
        pool,
        'recording the fetched email',
        `INSERT INTO emails (id, source, mailbox, uid_validity, uid, history_only, status, raw_size)
         VALUES (?, ?, ?, ?, ?, ?, 'fetched', ?)
         ON DUPLICATE KEY UPDATE raw_size = VALUES(raw_size)`,
        [
          email.emailId,
          email.source,
          email.mailbox ?? null,
          email.uidValidity ?? null,
          email.uid ?? null,
          email.historyOnly ? 1 : 0,
          email.raw.length,
        ],
      );
      return res.affectedRows > 0;
    },

    async getRaw(emailId: string): Promise<Buffer | null> {
      const rows = await query<Array<{ raw: Buffer }>>(pool, 'reading the raw message', 'SELECT raw FROM raw_messages WHERE email_id = ?', [
        emailId,
      ]);
      return rows[0]?.raw ?? null;
    },

    async saveParsed(emailId: string, p: ParsedEmail): Promise<void> {
      await query(
        pool,
        'saving the parsed email',
        `UPDATE emails SET message_id = ?, in_reply_to = ?, references_header = ?, thread_id = ?,
           from_address = ?, from_name = ?, reply_to_address = ?, reply_to_name = ?, to_addresses = ?,
           cc_addresses = ?, subject = ?, text_body = ?, has_html = ?, attachments = ?, sent_date = ?, priority = ?
         WHERE id = ?`,
        [
          p.messageId,
          p.inReplyTo,
          p.references.join(' '),
          p.threadId,
          p.from?.address ?? null,
          p.from?.name ?? null,
          p.replyTo?.address ?? null,
          p.replyTo?.name ?? null,
          JSON.stringify(p.to),
          JSON.stringify(p.cc),
          p.subject,
          p.text,
          p.hasHtml ? 1 : 0,
          JSON.stringify(p.attachments),
          p.date,
          p.priority,
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
      };
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

    async setAccount(emailId: string, account: string): Promise<void> {
      await query(pool, 'recording the account', 'UPDATE emails SET account = ? WHERE id = ?', [account, emailId]);
    },

    async threadParticipants(threadId: string, account: string): Promise<string[]> {
      const rows = await query<
        Array<{ from_address: string | null; reply_to_address: string | null; to_addresses: string | null; cc_addresses: string | null }>
      >(
        pool,
        'reading the thread participants',
        'SELECT from_address, reply_to_address, to_addresses, cc_addresses FROM emails WHERE thread_id = ? AND account = ?',
        [threadId, account],
      );
      const replies = await query<Array<{ to_address: string }>>(
        pool,
        'reading the recipients of our replies in the thread',
        `SELECT d.to_address FROM drafts d JOIN emails e ON e.id = d.email_id
         WHERE e.thread_id = ? AND e.account = ? AND d.status = 'sent'`,
        [threadId, account],
      );
      const list = (json: string | null): string[] => {
        try {
          return json ? (JSON.parse(json) as Array<{ address?: unknown }>).map((a) => String(a.address ?? '')) : [];
        } catch {
          return [];
        }
      };
      const all = [
        ...rows.flatMap((r) => [r.from_address ?? '', r.reply_to_address ?? '', ...list(r.to_addresses), ...list(r.cc_addresses)]),
        ...replies.map((r) => r.to_address),
      ];
      return [...new Set(all.map((a) => a.trim().toLowerCase()).filter((a) => a.length > 0))];
    },

    async setStatus(emailId: string, status: EmailStatus): Promise<void> {
      await query(
        pool,
        `setting status ${status}`,
        // Assignments run left to right: compare with the old status before overwriting it.
        `UPDATE emails SET status_changed_at = IF(status = ?, status_changed_at, CURRENT_TIMESTAMP(3)), status = ?
         WHERE id = ?`,
        [status, status, emailId],
      );
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
        `SELECT id FROM emails WHERE thread_id = ? AND id <> ? AND status IN ('awaiting_approval', 'manual_review')`,
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

    async countUnfinished(): Promise<number> {
      const rows = await query<Array<{ n: number }>>(
        pool,
        'counting the backlog',
        `SELECT COUNT(*) AS n FROM emails WHERE status IN (${UNFINISHED.map(() => '?').join(',')})`,
        UNFINISHED,
      );
      return Number(rows[0]?.n ?? 0);
    },
  };
}
