import { createHash } from 'node:crypto';
import { CASE_SETTLED_STATUSES, CASE_STATUS, type CaseStatus } from './case-status';
import { NEEDS_PERSON_STATUSES, SEND_STATUS, type EmailStatus } from '../email';
import type { CaseJoin, CaseJoinInput, CaseMail, CaseRow, CaseStore } from './cases.port';
import { insertCaseEvent } from './case-events.mariadb';
import { classifyDbError, query, sqlList, type Pool } from '../platform/pool.mariadb';

const SETTLED = sqlList(CASE_SETTLED_STATUSES);
const ISO = (d: Date | string | null | undefined): string | null => (d ? new Date(d).toISOString() : null);

interface CaseDbRow {
  id: string;
  mailbox_id: string;
  account: string;
  correspondent: string;
  subject: string;
  status: CaseStatus;
  priority: string;
  team: string | null;
  owner: string | null;
  email_count: number;
  open_emails?: number | bigint | null;
  waiting_since: Date | null;
  due_at: Date | null;
  last_reply_at: Date | null;
  last_customer_at: Date | null;
  opened_at: Date;
  closed_at: Date | null;
}

function toRow(r: CaseDbRow): CaseRow {
  return {
    id: r.id,
    mailboxId: r.mailbox_id,
    account: r.account,
    correspondent: r.correspondent,
    subject: r.subject,
    status: r.status,
    priority: r.priority,
    team: r.team,
    owner: r.owner,
    emailCount: Number(r.email_count),
    openEmails: Number(r.open_emails ?? 0),
    waitingSince: ISO(r.waiting_since),
    dueAt: ISO(r.due_at),
    lastReplyAt: ISO(r.last_reply_at),
    lastCustomerAt: ISO(r.last_customer_at),
    openedAt: ISO(r.opened_at) as string,
    closedAt: ISO(r.closed_at),
  };
}

/** A case is named after the mail that opened it: a retried join opens the same case, never a second. */
export function caseIdFor(emailId: string): string {
  return `case-${createHash('sha256').update(`case\u0000${emailId}`).digest('hex').slice(0, 24)}`;
}

const SELECT_CASE = `SELECT c.*, (SELECT COUNT(*) FROM emails e WHERE e.case_id = c.id AND e.status NOT IN (${SETTLED})) AS open_emails FROM cases c`;

export function createMariaDbCaseStore(pool: Pool): CaseStore {
  const get = async (caseId: string): Promise<CaseRow | null> => {
    const rows = await query<CaseDbRow[]>(pool, 'reading a case', `${SELECT_CASE} WHERE c.id = ?`, [caseId]);
    return rows[0] ? toRow(rows[0]) : null;
  };
  const waitingOthers = async (caseId: string, emailId: string): Promise<string[]> => {
    const rows = await query<Array<{ id: string }>>(
      pool,
      'finding waiting drafts of the case',
      `SELECT id FROM emails WHERE case_id = ? AND id <> ? AND status IN (${sqlList(NEEDS_PERSON_STATUSES)}) ORDER BY created_at`,
      [caseId, emailId],
    );
    return rows.map((r) => r.id);
  };
  const event: CaseStore['event'] = async (e) => {
    await insertCaseEvent(pool, { ...e, emailId: e.emailId ?? null, eventKey: e.key ?? null });
  };

  /** Which case the mail belongs to, decided under a lock per correspondent so two mails at once open one case. */
  async function decide(input: CaseJoinInput): Promise<Omit<CaseJoin, 'waiting'>> {
    const conn = await pool.getConnection().catch((err: unknown) => {
      throw classifyDbError(err, 'joining a case');
    });
    const lock = `case:${createHash('sha256').update(`${input.account}\u0000${input.mailboxId}\u0000${input.correspondent}`).digest('hex').slice(0, 40)}`;
    try {
      await conn.query('SELECT GET_LOCK(?, 30)', [lock]);
      const own = (await conn.query('SELECT case_id FROM emails WHERE id = ?', [input.emailId])) as Array<{ case_id: string | null }>;
      if (own[0]?.case_id) return { caseId: own[0].case_id, opened: false, via: 'already' };
      // The thread's case, while it is not closed: a follow-up belongs where its conversation is.
      // Else the correspondent's open case in this mailbox, if it moved within the window. Both
      // asked in one round trip; the thread's wins.
      const [open] = (await conn.query(
        `SELECT id, via FROM (
           (SELECT c.id, 'thread' AS via, 1 AS pick FROM emails e JOIN cases c ON c.id = e.case_id
             WHERE e.thread_id = ? AND e.account = ? AND e.id <> ? AND c.status <> 'closed' ORDER BY c.opened_at DESC LIMIT 1)
           UNION ALL
           (SELECT id, 'correspondent' AS via, 2 AS pick FROM cases
             WHERE account = ? AND mailbox_id = ? AND correspondent = ? AND status <> 'closed'
               AND GREATEST(opened_at, COALESCE(last_customer_at, opened_at), COALESCE(last_reply_at, opened_at)) >= NOW(3) - INTERVAL ? DAY
             ORDER BY opened_at DESC LIMIT 1)
         ) AS found ORDER BY pick LIMIT 1`,
        [input.threadId, input.account, input.emailId, input.account, input.mailboxId, input.correspondent, input.windowDays],
      )) as Array<{ id: string; via: 'thread' | 'correspondent' }>;
      const caseId = open?.id ?? caseIdFor(input.emailId);
      if (!open) {
        await conn.query(
          `INSERT IGNORE INTO cases (id, account, mailbox_id, correspondent, correspondent_name, subject, priority, status)
           VALUES (?, ?, ?, ?, ?, ?, ?, 'open')`,
          [
            caseId,
            input.account,
            input.mailboxId,
            input.correspondent,
            input.correspondentName.slice(0, 255),
            input.subject.slice(0, 998),
            input.priority,
          ],
        );
      }
      await conn.query('UPDATE emails SET case_id = ? WHERE id = ? AND case_id IS NULL', [caseId, input.emailId]);
      // A new mail raises the case to its priority (never lowers it) and reopens a case waiting for the customer.
      await conn.query(
        `UPDATE cases SET email_count = (SELECT COUNT(*) FROM emails WHERE case_id = ?), last_customer_at = NOW(3), status = 'open',
           priority = ELT(LEAST(FIELD(priority, 'critical', 'high', 'normal', 'low'), FIELD(?, 'critical', 'high', 'normal', 'low')), 'critical', 'high', 'normal', 'low'),
           waiting_since = COALESCE(waiting_since, NOW(3))
         WHERE id = ?`,
        [caseId, input.priority, caseId],
      );
      return { caseId, opened: !open, via: open?.via ?? 'opened' };
    } catch (err) {
      throw classifyDbError(err, 'joining a case');
    } finally {
      await conn.query('SELECT RELEASE_LOCK(?)', [lock]).catch(() => undefined);
      await conn.release();
    }
  }

  return {
    async join(input) {
      const decided = await decide(input);
      if (decided.via !== 'already') {
        await event({
          caseId: decided.caseId,
          emailId: input.emailId,
          eventType: decided.opened ? 'case_opened' : 'case_joined',
          message: decided.opened
            ? `opened for ${input.correspondent} by "${input.subject.slice(0, 200)}"`
            : `"${input.subject.slice(0, 200)}" joined (${decided.via === 'thread' ? 'same thread' : 'same correspondent, case open'})`,
          key: `${decided.caseId}:join:${input.emailId}`,
        });
      }
      return { ...decided, waiting: await waitingOthers(decided.caseId, input.emailId) };
    },

    async caseOf(emailId) {
      const rows = await query<Array<{ case_id: string | null }>>(
        pool,
        'reading the case of an email',
        'SELECT case_id FROM emails WHERE id = ?',
        [emailId],
      );
      return rows[0]?.case_id ?? null;
    },

    async caseAndCurrentDraft(emailId) {
      const rows = await query<Array<{ case_id: string | null; id: string | null; category: string | null; language: string | null }>>(
        pool,
        'reading the case and the current draft of an email',
        `SELECT e.case_id, d.id, d.category, d.language FROM emails e LEFT JOIN drafts d ON d.email_id = e.id
         WHERE e.id = ? ORDER BY d.version DESC LIMIT 1`,
        [emailId],
      );
      const r = rows[0];
      return {
        caseId: r?.case_id ?? null,
        draft: r?.id ? { id: r.id, category: r.category, language: r.language } : null,
      };
    },

    get,

    async openMails(caseId, exceptEmailId, limit) {
      const rows = await query<
        Array<{ id: string; subject: string | null; text_body: string | null; status: EmailStatus; created_at: Date }>
      >(
        pool,
        'reading the open mails of a case',
        `SELECT id, subject, text_body, status, created_at FROM emails
          WHERE case_id = ? AND id <> ? AND status NOT IN (${SETTLED}) ORDER BY created_at LIMIT ?`,
        [caseId, exceptEmailId, Math.max(1, Math.floor(limit))],
      );
      return rows.map((r): CaseMail => ({
        emailId: r.id,
        subject: r.subject ?? '',
        text: r.text_body ?? '',
        status: r.status,
        receivedAt: ISO(r.created_at) as string,
      }));
    },

    async refresh(caseId, reason) {
      const before = await get(caseId);
      if (!before || before.status === CASE_STATUS.closed) return before;
      // One round trip: the oldest unanswered mail, our last reply, and a person's answer beside the
      // assistant (a reply of ours too: the customer's turn).
      const found = await query<Array<{ since: Date | null; answered: Date | null; outside: Date | null }>>(
        pool,
        'finding the oldest unanswered mail and the last reply of a case',
        `SELECT (SELECT MIN(created_at) FROM emails WHERE case_id = ? AND status NOT IN (${SETTLED})) AS since,
           (SELECT MAX(s.sent_at) FROM send_attempts s JOIN drafts d ON d.id = s.draft_id JOIN emails e ON e.id = d.email_id
             WHERE e.case_id = ? AND s.status = '${SEND_STATUS.sent}') AS answered,
           (SELECT MAX(r.sent_at) FROM outside_answers a JOIN outside_replies r ON r.mailbox_id = a.mailbox_id AND r.message_key = a.message_key
             JOIN emails e ON e.id = a.email_id WHERE e.case_id = ?) AS outside`,
        [caseId, caseId, caseId],
      );
      const since = found[0]?.since ?? null;
      const replies = [found[0]?.answered, found[0]?.outside].filter((d): d is Date => d instanceof Date);
      const lastReply = replies.length > 0 ? new Date(Math.max(...replies.map((d) => d.getTime()))) : null;
      // Nothing waits: we answered (the customer's turn), or nothing needed an answer (closed).
      const status: CaseStatus = since
        ? CASE_STATUS.open
        : lastReply || before.lastReplyAt
          ? CASE_STATUS.waitingForCustomer
          : CASE_STATUS.closed;
      await query(
        pool,
        'updating a case',
        // MariaDB assigns left to right: the reminder and breach of a clock that restarted are cleared
        // before waiting_since moves to the mail that waits now.
        `UPDATE cases SET reminded_at = IF(waiting_since <=> ?, reminded_at, NULL), breached_at = IF(waiting_since <=> ?, breached_at, NULL),
           escalated_at = IF(waiting_since <=> ?, escalated_at, NULL),
           due_at = IF(waiting_since <=> ?, due_at, NULL), remind_at = IF(waiting_since <=> ?, remind_at, NULL),
           status = ?, waiting_since = ?, last_reply_at = COALESCE(?, last_reply_at),
           first_response_at = COALESCE(first_response_at, ?), closed_at = IF(? = 'closed', NOW(3), NULL)
         WHERE id = ?`,
        [since, since, since, since, since, status, since, lastReply, lastReply, status, caseId],
      );
      if (status !== before.status) {
        await event({
          caseId,
          eventType: `case_${status}`,
          message: `${before.status} → ${status}: ${reason}`,
          key: `${caseId}:status:${status}:${ISO(since) ?? ISO(lastReply) ?? 'none'}`,
        });
      }
      return get(caseId);
    },

    async closeIfQuiet(caseId, windowDays) {
      const r = (await query(
        pool,
        'closing a quiet case',
        `UPDATE cases SET status = 'closed', closed_at = NOW(3)
          WHERE id = ? AND status = 'waiting_for_customer' AND COALESCE(last_reply_at, opened_at) <= NOW(3) - INTERVAL ? DAY`,
        [caseId, windowDays],
      )) as { affectedRows: number };
      if (r.affectedRows > 0) {
        await event({
          caseId,
          eventType: 'case_closed',
          message: `closed: no mail from the customer for ${windowDays} days after our reply`,
          key: `${caseId}:closed:quiet`,
        });
      }
      return r.affectedRows > 0;
    },

    event,

    async list(filter) {
      const where: string[] = [];
      const params: unknown[] = [];
      const add = (sql: string, value: unknown): void => {
        where.push(sql);
        params.push(value);
      };
      if (filter.status) add('c.status = ?', filter.status);
      if (filter.mailboxId) add('c.mailbox_id = ?', filter.mailboxId);
      if (filter.correspondent) add('c.correspondent = ?', filter.correspondent.toLowerCase());
      const rows = await query<CaseDbRow[]>(
        pool,
        'listing cases',
        `${SELECT_CASE} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY c.updated_at DESC LIMIT ?`,
        [...params, Math.min(1000, Math.max(1, Math.floor(filter.limit)))],
      );
      return rows.map(toRow);
    },
  };
}
