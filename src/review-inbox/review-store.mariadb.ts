/** What the review inbox reads from MariaDB: the queue, one email with its thread and drafts, sources. */
import { readDraftSource } from '../drafting/index.adapters';
import { type SourceText } from '../drafting';
import { NEEDS_PERSON_STATUSES, SEND_STATUS } from '../email';
import { query, type Pool } from '../platform/pool.mariadb';
import {
  QUEUE_PAGE_SIZE,
  queuePage,
  tabCounts,
  type QueueCounts,
  type QueueCursor,
  type QueueFilter,
  type QueuePage,
} from './review-queue.mariadb';

export { QUEUE_COUNT_CAP, QUEUE_FLAGS, QUEUE_PAGE_SIZE, decodeCursor, encodeCursor } from './review-queue.mariadb';
export type { QueueCounts, QueueCursor, QueueFilter, QueueItem, QueuePage } from './review-queue.mariadb';

export interface EmailRecord {
  id: string;
  status: string;
  statusReason: string | null;
  /** Why triage set it aside (`emails.triage_class`), when it did. */
  triageClass: string | null;
  priority: string;
  /** The registry entry the mail came in through. */
  mailboxId: string;
  mailbox: string | null;
  /** The case the email belongs to, if any. */
  caseId: string | null;
  threadId: string | null;
  fromName: string | null;
  fromAddress: string | null;
  replyToAddress: string | null;
  to: string | null;
  subject: string | null;
  text: string;
  hasHtml: boolean;
  date: Date | null;
  createdAt: Date;
}

/** A person's reply sent beside the assistant, shown beside the withdrawn draft. */
export interface OutsideAnswerView {
  messageId: string;
  /** `sent_folder` or `team_copy`. */
  foundVia: string;
  folder: string | null;
  from: string;
  subject: string;
  text: string;
  sentAt: Date;
  /** `in_reply_to`, `references` or `subject`. */
  matchedBy: string;
  seenAt: Date;
}

export interface DraftRecord {
  id: string;
  version: number;
  status: string;
  subject: string;
  body: string;
  approvedBody: string | null;
  language: string;
  confidence: number;
  drafter: string;
  model: string;
  promptVersion: string;
  /** The guidance versions it was written under (`g12+g15`), null when none. */
  guidanceVersion: string | null;
  contextIds: string[];
  flags: string[];
  toAddress: string;
  toName: string;
  decidedBy: string | null;
  decisionReason: string | null;
  createdAt: Date;
}

export type { SourceText } from '../drafting';

/** What the review queue filters on: the email waits for a person, or its send is in doubt. */
export const REVIEW_STATUSES = Object.freeze([...NEEDS_PERSON_STATUSES, SEND_STATUS.inDoubt] as const);
function parseList(raw: string | null): string[] {
  if (!raw) return [];
  try {
    const v = JSON.parse(raw) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export function createMariaDbReviewStore(pool: Pool) {
  return {
    /**
     * One page of the emails waiting for a person (drafts to decide, emails without a usable draft,
     * sends in doubt), in queue order; see review-queue.ts.
     */
    queue(filter: QueueFilter, at: { after?: QueueCursor; before?: QueueCursor } = {}, size = QUEUE_PAGE_SIZE): Promise<QueuePage> {
      return queuePage(pool, filter, at, size);
    },

    /** How many emails each queue tab holds under the same filters (shown on the tabs). */
    tabCounts(filter: Omit<QueueFilter, 'view'>, me: string): Promise<QueueCounts> {
      return tabCounts(pool, filter, me);
    },

    /** Teams the cases name (for the queue's team filter). */
    async teams(): Promise<string[]> {
      const rows = await query<Array<{ team: string }>>(
        pool,
        'listing teams',
        'SELECT DISTINCT team FROM cases WHERE team IS NOT NULL ORDER BY team LIMIT 200',
      );
      return rows.map((r) => r.team);
    },

    /** Mailbox ids the emails name (also of entries since removed from the registry). */
    async mailboxes(): Promise<string[]> {
      const rows = await query<Array<{ mailbox_id: string }>>(
        pool,
        'listing mailboxes',
        `SELECT DISTINCT mailbox_id FROM emails ORDER BY mailbox_id`,
      );
      return rows.map((r) => r.mailbox_id);
    },

    async email(id: string): Promise<EmailRecord | null> {
      const rows = await query<Array<Record<string, unknown>>>(pool, 'reading an email', 'SELECT * FROM emails WHERE id = ?', [id]);
      const r = rows[0];
      if (!r) return null;
      return {
        id: String(r.id),
        status: String(r.status),
        statusReason: (r.status_reason as string | null) ?? null,
        triageClass: (r.triage_class as string | null) ?? null,
        priority: String(r.priority),
        mailboxId: String(r.mailbox_id ?? 'default'),
        mailbox: (r.mailbox as string | null) ?? null,
        caseId: (r.case_id as string | null) ?? null,
        threadId: (r.thread_id as string | null) ?? null,
        fromName: (r.from_name as string | null) ?? null,
        fromAddress: (r.from_address as string | null) ?? null,
        replyToAddress: (r.reply_to_address as string | null) ?? null,
        to: (r.to_addresses as string | null) ?? null,
        subject: (r.subject as string | null) ?? null,
        // Only the parsed text is ever shown: the mail's HTML never reaches the reviewer's browser.
        text: String(r.text_body ?? ''),
        hasHtml: Number(r.has_html) === 1,
        date: (r.sent_date as Date | null) ?? null,
        createdAt: r.created_at as Date,
      };
    },

    /** The other messages of the thread, oldest first, with our sent replies to them. */
    async thread(email: EmailRecord): Promise<Array<{ id: string; from: string; subject: string; text: string; at: Date; ours: boolean }>> {
      if (!email.threadId) return [];
      const mails = await query<
        Array<{ id: string; from_address: string | null; subject: string | null; text_body: string | null; created_at: Date }>
      >(
        pool,
        'reading a thread',
        `SELECT id, from_address, subject, text_body, created_at FROM emails
         WHERE thread_id = ? AND id <> ? AND account = (SELECT account FROM emails WHERE id = ?) ORDER BY COALESCE(sent_date, created_at) LIMIT 50`,
        [email.threadId, email.id, email.id],
      );
      const replies = await query<
        Array<{ email_id: string; body: string; approved_body: string | null; to_address: string; sent_at: Date }>
      >(
        pool,
        'reading replies of a thread',
        `SELECT d.email_id, d.body, d.approved_body, d.to_address, s.sent_at FROM drafts d JOIN send_attempts s ON s.draft_id = d.id
         JOIN emails e ON e.id = d.email_id WHERE e.thread_id = ? AND s.status = '${SEND_STATUS.sent}' ORDER BY s.sent_at LIMIT 50`,
        [email.threadId],
      );
      return [
        ...mails.map((m) => ({
          id: m.id,
          from: m.from_address ?? '',
          subject: m.subject ?? '',
          text: m.text_body ?? '',
          at: m.created_at,
          ours: false,
        })),
        ...replies.map((r) => ({
          id: r.email_id,
          from: 'reply',
          subject: `→ ${r.to_address}`,
          text: r.approved_body ?? r.body,
          at: r.sent_at,
          ours: true,
        })),
      ].sort((a, b) => a.at.getTime() - b.at.getTime());
    },

    /** The reply a person sent beside the assistant that answered this email, if any (the first). */
    async outsideAnswer(emailId: string): Promise<OutsideAnswerView | null> {
      const rows = await query<Array<Record<string, unknown>>>(
        pool,
        'reading the outside answer of an email',
        `SELECT r.message_id, r.found_via, r.folder, r.from_address, r.from_name, r.subject, r.text_body, r.sent_at, a.matched_by, a.created_at
           FROM outside_answers a JOIN outside_replies r ON r.mailbox_id = a.mailbox_id AND r.message_key = a.message_key
          WHERE a.email_id = ? ORDER BY r.sent_at LIMIT 1`,
        [emailId],
      );
      const r = rows[0];
      if (!r) return null;
      return {
        messageId: r.message_id as string,
        foundVia: r.found_via as string,
        folder: (r.folder as string | null) ?? null,
        from: r.from_name ? `${r.from_name as string} <${r.from_address as string}>` : (r.from_address as string),
        subject: r.subject as string,
        text: r.text_body as string,
        sentAt: r.sent_at as Date,
        matchedBy: r.matched_by as string,
        seenAt: r.created_at as Date,
      };
    },

    async drafts(emailId: string): Promise<DraftRecord[]> {
      const rows = await query<Array<Record<string, unknown>>>(
        pool,
        'reading drafts',
        'SELECT * FROM drafts WHERE email_id = ? ORDER BY version',
        [emailId],
      );
      return rows.map((r) => ({
        id: String(r.id),
        version: Number(r.version),
        status: String(r.status),
        subject: String(r.subject),
        body: String(r.body),
        approvedBody: (r.approved_body as string | null) ?? null,
        language: String(r.language),
        confidence: Number(r.confidence),
        drafter: String(r.drafter),
        model: String(r.model),
        promptVersion: String(r.prompt_version),
        guidanceVersion: (r.guidance_version as string | null) ?? null,
        contextIds: parseList(r.context_ids as string | null),
        flags: parseList(r.flags as string | null),
        toAddress: String(r.to_address),
        toName: String(r.to_name ?? ''),
        decidedBy: (r.decided_by as string | null) ?? null,
        decisionReason: (r.decision_reason as string | null) ?? null,
        createdAt: r.created_at as Date,
      }));
    },

    async sendOf(draftId: string): Promise<{ status: string; messageId: string; lastError: string | null; attempts: number } | null> {
      const rows = await query<Array<{ status: string; message_id: string; last_error: string | null; attempts: number }>>(
        pool,
        'reading a send',
        'SELECT status, message_id, last_error, attempts FROM send_attempts WHERE draft_id = ?',
        [draftId],
      );
      const r = rows[0];
      return r ? { status: r.status, messageId: r.message_id, lastError: r.last_error, attempts: Number(r.attempts) } : null;
    },

    async audit(emailId: string): Promise<Array<{ at: Date; event: string; actor: string | null; message: string }>> {
      const rows = await query<Array<{ created_at: Date; event_type: string; actor: string | null; message: string }>>(
        pool,
        'reading the audit log of an email',
        'SELECT created_at, event_type, actor, message FROM audit_log WHERE email_id = ? ORDER BY id DESC LIMIT 100',
        [emailId],
      );
      return rows.map((r) => ({ at: r.created_at, event: r.event_type, actor: r.actor, message: r.message }));
    },

    /** One source of a draft as the model saw it (see draft-sources.ts). */
    source(sourceId: string, correspondent: string): Promise<SourceText | null> {
      return readDraftSource(pool, sourceId, correspondent);
    },
  };
}
export type ReviewStore = ReturnType<typeof createMariaDbReviewStore>;
