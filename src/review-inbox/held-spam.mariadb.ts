/** The emails triage holds as spam (status `ignored`, class `spam`), newest first, for the inbox's spam list. */
import { STATUS } from '../email';
import { query, type Queryable } from '../platform/pool.mariadb';

export const HELD_SPAM_PAGE = 100;

export interface HeldSpam {
  emailId: string;
  mailboxId: string;
  fromName: string | null;
  fromAddress: string | null;
  subject: string | null;
  /** Why it is held: the filter's header or the built-in check's signs. */
  reason: string | null;
  receivedAt: Date;
}

interface Row {
  id: string;
  mailbox_id: string;
  from_name: string | null;
  from_address: string | null;
  subject: string | null;
  status_reason: string | null;
  created_at: Date;
}

/** Read through ix_emails_triage_class; the newest `limit` rows of the class are enough to look through. */
export async function heldSpam(pool: Queryable, limit = HELD_SPAM_PAGE): Promise<HeldSpam[]> {
  const rows = await query<Row[]>(
    pool,
    'listing the emails held as spam',
    `SELECT id, mailbox_id, from_name, from_address, subject, status_reason, created_at FROM emails
      WHERE triage_class = 'spam' AND status = '${STATUS.ignored}' ORDER BY created_at DESC, id DESC LIMIT ${Math.floor(limit)}`,
  );
  return rows.map((r) => ({
    emailId: r.id,
    mailboxId: r.mailbox_id,
    fromName: r.from_name,
    fromAddress: r.from_address,
    subject: r.subject,
    reason: r.status_reason,
    receivedAt: r.created_at,
  }));
}
