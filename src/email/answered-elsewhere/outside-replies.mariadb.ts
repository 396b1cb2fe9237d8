import { createHash } from 'node:crypto';
import { ENDED_STATUSES } from '../email-status';
import { query, sqlList, type Pool } from '../../platform/pool.mariadb';
import type { FoundVia, MatchedBy, OutsideAnswer, OutsideReply, OutsideReplyStore, WaitingMail } from './outside-replies.port';

/** A reply names a handful of earlier messages; more is noise (or a crafted header) and is cut. */
const MAX_IDS = 50;
/** Message-IDs looked up per statement (a Sent folder's look reads 200 messages at most). */
const OURS_BATCH = 200;
/** Candidates by customer and subject: a customer's open mails, never a whole history. */
const MAX_BY_SENDER = 50;

const keyOf = (messageId: string) => createHash('sha256').update(messageId).digest('hex');

interface WaitingRow {
  id: string;
  message_id: string | null;
  from_address: string | null;
  reply_to_address: string | null;
  subject: string | null;
  at: Date;
}

interface ReplyRow {
  mailbox_id: string;
  message_id: string;
  found_via: FoundVia;
  folder: string | null;
  uid_validity: number | bigint | null;
  uid: number | bigint | null;
  from_address: string;
  from_name: string;
  to_addresses: string;
  subject: string;
  in_reply_to: string | null;
  references_header: string | null;
  text_body: string;
  sent_at: Date;
}

const WAITING = `history_only = 0 AND status NOT IN (${sqlList(ENDED_STATUSES)})`;
const WAITING_COLUMNS = 'id, message_id, from_address, reply_to_address, subject, COALESCE(sent_date, created_at) AS at';

function waitingMail(r: WaitingRow): WaitingMail {
  const customer = [r.from_address, r.reply_to_address].filter((a): a is string => Boolean(a)).map((a) => a.toLowerCase());
  return { emailId: r.id, messageId: r.message_id, customer: [...new Set(customer)], subject: r.subject ?? '', receivedAt: r.at };
}

function reply(r: ReplyRow): OutsideReply {
  return {
    mailboxId: r.mailbox_id,
    messageId: r.message_id,
    foundVia: r.found_via,
    ...(r.folder ? { folder: r.folder } : {}),
    ...(r.uid_validity !== null ? { uidValidity: Number(r.uid_validity) } : {}),
    ...(r.uid !== null ? { uid: Number(r.uid) } : {}),
    from: { name: r.from_name, address: r.from_address },
    to: JSON.parse(r.to_addresses) as string[],
    subject: r.subject,
    inReplyTo: r.in_reply_to,
    references: r.references_header ? r.references_header.split(' ').filter(Boolean) : [],
    text: r.text_body,
    sentAt: r.sent_at,
  };
}

export function createMariaDbOutsideReplies(pool: Pool): OutsideReplyStore {
  return {
    async oursAmong(messageIds) {
      const ids = [...new Set(messageIds)].filter((id) => id.length <= 998);
      const ours = new Set<string>();
      for (let i = 0; i < ids.length; i += OURS_BATCH) {
        const batch = ids.slice(i, i + OURS_BATCH);
        const rows = await query<Array<{ message_id: string }>>(
          pool,
          'looking up replies of ours',
          `SELECT DISTINCT message_id FROM send_attempts WHERE message_id IN (${batch.map(() => '?').join(', ')})`,
          batch,
        );
        for (const r of rows) ours.add(r.message_id);
      }
      return ours;
    },

    async waitingByMessageId(mailboxId, messageIds) {
      const ids = [...new Set(messageIds)].filter((id) => id.length <= 998).slice(0, MAX_IDS);
      if (ids.length === 0) return [];
      const rows = await query<WaitingRow[]>(
        pool,
        'finding the mails an outside reply names',
        `SELECT ${WAITING_COLUMNS} FROM emails WHERE mailbox_id = ? AND message_id IN (${ids.map(() => '?').join(',')}) AND ${WAITING}`,
        [mailboxId, ...ids],
      );
      return rows.map(waitingMail);
    },

    async waitingFrom(mailboxId, addresses, before) {
      const list = [...new Set(addresses.map((a) => a.toLowerCase()))].slice(0, MAX_IDS);
      if (list.length === 0) return [];
      const marks = list.map(() => '?').join(',');
      const rows = await query<WaitingRow[]>(
        pool,
        'finding a customer’s waiting mails',
        `SELECT ${WAITING_COLUMNS} FROM emails
          WHERE mailbox_id = ? AND (from_address IN (${marks}) OR reply_to_address IN (${marks})) AND ${WAITING}
            AND COALESCE(sent_date, created_at) <= ? ORDER BY created_at DESC LIMIT ${MAX_BY_SENDER}`,
        [mailboxId, ...list, ...list, before],
      );
      return rows.map(waitingMail);
    },

    async record(r, answers) {
      const key = keyOf(r.messageId);
      await query(
        pool,
        'storing an outside reply',
        `INSERT INTO outside_replies (mailbox_id, message_key, message_id, found_via, folder, uid_validity, uid, from_address, from_name,
           to_addresses, subject, in_reply_to, references_header, text_body, sent_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON DUPLICATE KEY UPDATE message_key = message_key`,
        [
          r.mailboxId,
          key,
          r.messageId,
          r.foundVia,
          r.folder ?? null,
          r.uidValidity ?? null,
          r.uid ?? null,
          r.from.address.slice(0, 320),
          r.from.name.slice(0, 255),
          JSON.stringify(r.to),
          r.subject,
          r.inReplyTo?.slice(0, 998) ?? null,
          r.references.join(' ') || null,
          r.text,
          r.sentAt,
        ],
      );
      const tied: string[] = [];
      for (const a of answers) {
        const res = await query<{ affectedRows: number }>(
          pool,
          'tying an outside reply to the mail it answers',
          'INSERT IGNORE INTO outside_answers (email_id, mailbox_id, message_key, matched_by) VALUES (?, ?, ?, ?)',
          [a.emailId, r.mailboxId, key, a.matchedBy],
        );
        if (res.affectedRows > 0) tied.push(a.emailId);
      }
      return tied;
    },

    async answerOf(emailId) {
      const rows = await query<Array<ReplyRow & { matched_by: MatchedBy; seen_at: Date; email_id: string }>>(
        pool,
        'reading the outside answer of a mail',
        `SELECT r.*, a.matched_by, a.email_id, a.created_at AS seen_at FROM outside_answers a
           JOIN outside_replies r ON r.mailbox_id = a.mailbox_id AND r.message_key = a.message_key
          WHERE a.email_id = ? ORDER BY r.sent_at, a.created_at LIMIT 1`,
        [emailId],
      );
      const r = rows[0];
      if (!r) return null;
      const answer: OutsideAnswer = { emailId: r.email_id, matchedBy: r.matched_by, reply: reply(r), seenAt: r.seen_at };
      return answer;
    },

    async repliesNaming(mailboxId, messageId) {
      const rows = await query<ReplyRow[]>(
        pool,
        'finding outside replies to a mail',
        // In-Reply-To by its index; References only among the mailbox's recent outside replies.
        `SELECT * FROM outside_replies WHERE mailbox_id = ? AND (in_reply_to = ?
           OR (sent_at > NOW(3) - INTERVAL 30 DAY AND LOCATE(?, COALESCE(references_header, '')) > 0))
          ORDER BY sent_at LIMIT 10`,
        [mailboxId, messageId, messageId],
      );
      return rows.map(reply);
    },
  };
}
