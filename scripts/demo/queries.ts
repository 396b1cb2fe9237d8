import type { Pool } from '../../src/platform/pool.mariadb';
import { WATCHER_STATES } from '../../src/mailboxes/mailboxes.contract';

export interface Watermark {
  uidValidity: number;
  lastUid: number;
  historyUntilUid: number;
}

export interface EmailRow {
  id: string;
  messageId: string | null;
  fromName: string | null;
  fromAddress: string | null;
  subject: string | null;
  status: string;
  /** The newest draft's body, when there is one. */
  draftBody: string | null;
  /** The ids of the context the newest draft was written from. */
  draftContextIds: string[];
  /** The ids the newest draft's sentences cite (its stored claims, in sentence order): the body names none. */
  draftCitedIds: string[];
  /** The newest draft's language (de, en, und). */
  draftLanguage: string | null;
  /** The flags the reviewer sees on the newest draft (possible_prompt_injection, reply_to_differs, …). */
  draftFlags: string[];
  /** The newest draft's category, one of the installation's list (or unclassified). */
  draftCategory: string | null;
}

export async function watermark(pool: Pool, account: string, mailbox: string): Promise<Watermark | undefined> {
  const rows = (await pool.query(
    'SELECT uid_validity, last_uid, history_until_uid FROM mailbox_watermarks WHERE account = ? AND mailbox = ?',
    [account, mailbox],
  )) as Array<{ uid_validity: number; last_uid: number; history_until_uid: number }>;
  const r = rows[0];
  return r && { uidValidity: Number(r.uid_validity), lastUid: Number(r.last_uid), historyUntilUid: Number(r.history_until_uid) };
}

/** One claim's cited ids; a row GROUP_CONCAT cut at its length limit names none. */
function idList(json: string): string[] {
  try {
    const ids: unknown = JSON.parse(json);
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

/** Every email row with its newest draft, in mailbox order. */
export async function emailRows(pool: Pool): Promise<EmailRow[]> {
  const rows = (await pool.query(
    `SELECT e.id, e.message_id, e.from_name, e.from_address, e.subject, e.status,
            (SELECT d.body FROM drafts d WHERE d.email_id = e.id ORDER BY d.version DESC LIMIT 1) AS draft_body,
            (SELECT d.context_ids FROM drafts d WHERE d.email_id = e.id ORDER BY d.version DESC LIMIT 1) AS draft_context_ids,
            (SELECT d.flags FROM drafts d WHERE d.email_id = e.id ORDER BY d.version DESC LIMIT 1) AS draft_flags,
            (SELECT d.category FROM drafts d WHERE d.email_id = e.id ORDER BY d.version DESC LIMIT 1) AS draft_category,
            (SELECT d.language FROM drafts d WHERE d.email_id = e.id ORDER BY d.version DESC LIMIT 1) AS draft_language,
            (SELECT GROUP_CONCAT(c.cited_ids ORDER BY c.sentence_index SEPARATOR '\n') FROM draft_claims c
              WHERE c.draft_id = (SELECT d.id FROM drafts d WHERE d.email_id = e.id ORDER BY d.version DESC LIMIT 1)) AS draft_cited
       FROM emails e ORDER BY e.uid_validity, e.uid, e.created_at`,
  )) as Array<{
    id: string;
    message_id: string | null;
    from_name: string | null;
    from_address: string | null;
    subject: string | null;
    status: string;
    draft_body: string | null;
    draft_context_ids: string | null;
    draft_flags: string | null;
    draft_category: string | null;
    draft_language: string | null;
    draft_cited: string | null;
  }>;
  return rows.map((r) => ({
    id: r.id,
    messageId: r.message_id,
    fromName: r.from_name,
    fromAddress: r.from_address,
    subject: r.subject,
    status: r.status,
    draftBody: r.draft_body,
    draftContextIds: r.draft_context_ids ? (JSON.parse(r.draft_context_ids) as string[]) : [],
    draftFlags: r.draft_flags ? (JSON.parse(r.draft_flags) as string[]) : [],
    draftCategory: r.draft_category,
    draftLanguage: r.draft_language,
    draftCitedIds: [...new Set((r.draft_cited ?? '').split('\n').flatMap(idList))],
  }));
}

export async function emailStatus(pool: Pool, emailId: string): Promise<string | undefined> {
  const rows = (await pool.query('SELECT status FROM emails WHERE id = ?', [emailId])) as Array<{ status: string }>;
  return rows[0]?.status;
}

/** Whether the sent reply was also filed in the IMAP Sent folder. */
export async function appendedToSent(pool: Pool, emailId: string): Promise<boolean> {
  const rows = (await pool.query("SELECT appended_to_sent FROM send_attempts WHERE email_id = ? AND status = 'sent'", [emailId])) as Array<{
    appended_to_sent: number;
  }>;
  return rows.some((r) => Number(r.appended_to_sent) === 1);
}

/** True once a folder's IDLE watcher holds its connection (push intake is on). */
export async function watcherIdle(pool: Pool): Promise<true | undefined> {
  const rows = (await pool.query('SELECT 1 FROM mailbox_watchers WHERE state = ? LIMIT 1', [WATCHER_STATES.idle])) as unknown[];
  return rows.length > 0 ? true : undefined;
}
