/** What the review inbox reads about a case: the case row, its mails with their current drafts, its history. */
import { CASE_SETTLED_STATUSES } from './case-status';
import { DRAFT_STATUS } from '../drafting';
import { STATUS } from '../email';
import { query, sqlList, type Pool } from '../platform/pool.mariadb';

export interface CaseRecord {
  id: string;
  account: string;
  mailboxId: string;
  correspondent: string;
  correspondentName: string;
  subject: string;
  status: string;
  priority: string;
  team: string | null;
  owner: string | null;
  routedBy: string | null;
  claimedBy: string | null;
  claimedUntil: Date | null;
  openedAt: Date;
  waitingSince: Date | null;
  dueAt: Date | null;
  remindAt: Date | null;
  remindedAt: Date | null;
  breachedAt: Date | null;
  escalatedAt: Date | null;
  closedAt: Date | null;
  /** The handover summary (never sent to the customer), how it was made, and how many mails it covers. */
  summary: string | null;
  summaryKind: string | null;
  summaryEmails: number;
}

export interface CaseDraft {
  id: string;
  version: number;
  status: string;
  body: string;
  flags: string[];
}

export interface CaseEmail {
  id: string;
  receivedAt: Date;
  subject: string | null;
  fromName: string | null;
  fromAddress: string | null;
  status: string;
  /** The newest draft, whatever its status. */
  draft: CaseDraft | null;
  /** The email waits for a decision on exactly its current draft: it can be answered by one reply. */
  waitingForApproval: boolean;
  /** It no longer waits for an answer from us (sent, rejected, ignored): it does not keep the case open. */
  settled: boolean;
}

export interface CaseEvent {
  at: Date;
  type: string;
  actor: string | null;
  message: string;
  emailId: string | null;
}

export interface CaseDetails {
  case: CaseRecord;
  /** Oldest first. */
  emails: CaseEmail[];
  /** Newest first, at most `eventLimit`. */
  events: CaseEvent[];
  /** More events are stored than shown. */
  moreEvents: boolean;
}

/** A case keeps a correspondent's open work; a page of this many mails (the newest) is already a lot to read. */
export const MAX_CASE_EMAILS = 200;
export const DEFAULT_EVENT_LIMIT = 100;

function parseList(raw: unknown): string[] {
  if (typeof raw !== 'string') return [];
  try {
    const v = JSON.parse(raw) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

const date = (v: unknown): Date | null => (v instanceof Date ? v : null);
const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

function caseRecord(r: Record<string, unknown>): CaseRecord {
  return {
    id: String(r.id),
    account: String(r.account),
    mailboxId: String(r.mailbox_id),
    correspondent: String(r.correspondent),
    correspondentName: String(r.correspondent_name ?? ''),
    subject: String(r.subject ?? ''),
    status: String(r.status),
    priority: String(r.priority),
    team: text(r.team),
    owner: text(r.owner),
    routedBy: text(r.routed_by),
    claimedBy: text(r.claimed_by),
    claimedUntil: date(r.claimed_until),
    openedAt: r.opened_at as Date,
    waitingSince: date(r.waiting_since),
    dueAt: date(r.due_at),
    remindAt: date(r.remind_at),
    remindedAt: date(r.reminded_at),
    breachedAt: date(r.breached_at),
    escalatedAt: date(r.escalated_at),
    closedAt: date(r.closed_at),
    summary: text(r.summary),
    summaryKind: text(r.summary_kind),
    summaryEmails: Number(r.summary_emails ?? 0),
  };
}

/**
 * An email belongs to the case only within the case's account and mailbox: a case id on a mail of
 * another account (a bug, a hand-edited row) never shows that mail on this case's page.
 */
const CASE_EMAILS = `FROM emails e JOIN cases c ON c.id = e.case_id AND e.account = c.account AND e.mailbox_id = c.mailbox_id`;
const SETTLED = sqlList(CASE_SETTLED_STATUSES);

export function createMariaDbCaseView(pool: Pool) {
  async function emailsOf(caseId: string): Promise<CaseEmail[]> {
    const rows = await query<Array<Record<string, unknown>>>(
      pool,
      'reading the mails of a case',
      `SELECT e.id, COALESCE(e.sent_date, e.created_at) AS received, e.subject, e.from_name, e.from_address, e.status,
              d.id AS draft_id, d.version, d.status AS draft_status, d.body, d.flags
       ${CASE_EMAILS}
       LEFT JOIN drafts d ON d.email_id = e.id AND d.version = (SELECT MAX(version) FROM drafts m WHERE m.email_id = e.id)
       WHERE c.id = ? ORDER BY received DESC, e.id DESC LIMIT ${MAX_CASE_EMAILS}`,
      [caseId],
    );
    // The newest when there are more: the open work is at the end of a long case.
    return rows.reverse().map((r) => {
      const draft: CaseDraft | null =
        r.draft_id === null
          ? null
          : {
              id: String(r.draft_id),
              version: Number(r.version),
              status: String(r.draft_status),
              body: String(r.body),
              flags: parseList(r.flags),
            };
      const status = String(r.status);
      return {
        id: String(r.id),
        receivedAt: r.received as Date,
        subject: text(r.subject),
        fromName: text(r.from_name),
        fromAddress: text(r.from_address),
        status,
        draft,
        waitingForApproval: status === STATUS.awaitingApproval && draft?.status === DRAFT_STATUS.awaitingApproval,
        settled: (CASE_SETTLED_STATUSES as readonly string[]).includes(status),
      };
    });
  }

  return {
    /** The case with its mails and newest history, or null when there is no such case. */
    async details(caseId: string, eventLimit = DEFAULT_EVENT_LIMIT): Promise<CaseDetails | null> {
      const rows = await query<Array<Record<string, unknown>>>(pool, 'reading a case', 'SELECT * FROM cases WHERE id = ?', [caseId]);
      const row = rows[0];
      if (!row) return null;
      const limit = Math.max(1, Math.floor(eventLimit));
      const [emails, events] = await Promise.all([
        emailsOf(caseId),
        query<Array<{ created_at: Date; event_type: string; actor: string | null; message: string; email_id: string | null }>>(
          pool,
          'reading the history of a case',
          `SELECT created_at, event_type, actor, message, email_id FROM case_events WHERE case_id = ? ORDER BY id DESC LIMIT ${limit + 1}`,
          [caseId],
        ),
      ]);
      return {
        case: caseRecord(row),
        emails,
        events: events
          .slice(0, limit)
          .map((e) => ({ at: e.created_at, type: e.event_type, actor: e.actor, message: e.message, emailId: e.email_id })),
        moreEvents: events.length > limit,
      };
    },

    /** The case an email belongs to, with how many of its other mails are still open (not settled). */
    async ofEmail(emailId: string): Promise<{ id: string; subject: string; status: string; otherOpen: number } | null> {
      const rows = await query<Array<{ id: string; subject: string; status: string; other_open: number }>>(
        pool,
        'reading the case of an email',
        `SELECT c.id, c.subject, c.status,
                (SELECT COUNT(*) FROM emails o WHERE o.case_id = c.id AND o.account = c.account AND o.mailbox_id = c.mailbox_id
                   AND o.id <> e.id AND o.status NOT IN (${SETTLED})) AS other_open
         ${CASE_EMAILS} WHERE e.id = ?`,
        [emailId],
      );
      const r = rows[0];
      return r ? { id: r.id, subject: r.subject, status: r.status, otherOpen: Number(r.other_open) } : null;
    },
  };
}
export type CaseView = ReturnType<typeof createMariaDbCaseView>;
