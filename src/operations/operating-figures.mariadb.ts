import { FAILURE_TYPES, PLATFORM_AUDIT_EVENTS } from '../platform/contract';
import { EMAIL_STATUSES, NEEDS_PERSON_STATUSES, UNFINISHED_STATUSES, type SendStatus } from '../email';
import { QUEUE_STATUS } from '../platform/job-queue';
import { PRIORITIES, type Priority, TRIAGE_ALERT_EVENTS, type TriageAlertEvent } from '../triage';
import { AUTONOMY_EVENTS } from '../autonomy';
import {
  type EmailGroup,
  type OperatingEvents,
  type OperatingFigures,
  type OperatingState,
  type SignInRefusals,
} from './operating-figures.port';
import { outcomesBetween } from './draft-quality.mariadb';
import { query, sqlList, type Queryable } from '../platform/pool.mariadb';

/** Every status: the range on `ix_emails_status (status, status_changed_at)` then needs no table scan. */
const ALL_STATUSES = sqlList(EMAIL_STATUSES);
const ALL_PRIORITIES = sqlList(PRIORITIES);
/** An audit row of `alias` recording a draft that waits for a person, or the email going to a person. */
const outForPerson = (alias: string) => `(${NEEDS_PERSON_STATUSES.map((s) => `${alias}.message LIKE '${s}:%'`).join(' OR ')})`;
/**
 * Step runtimes are read through `ix_queue_jobs_status` by creation time: a job that finished more
 * than this long after its row was made (a dead letter requeued days later) is not in the histogram.
 */
const RUNTIME_LOOKBACK_HOURS = 6;

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));

/**
 * Every query here is a range on an index (status, event type, creation time), so the worker can
 * run the set every few seconds on a large database.
 */
/**
 * `signIns` reads the review inbox's refused sign-ins (that feature's adapter); without it the
 * events carry none.
 */
export function createMariaDbOperatingFigures(pool: Queryable, signIns?: SignInRefusals): OperatingFigures {
  return {
    async now(lagSeconds = 0): Promise<Date> {
      const [row] = await query<Array<{ t: Date }>>(
        pool,
        'reading the database clock',
        'SELECT CURRENT_TIMESTAMP(3) - INTERVAL ? MICROSECOND AS t',
        [Math.round(lagSeconds * 1e6)],
      );
      return new Date(row!.t);
    },

    async state(): Promise<OperatingState> {
      const groups = await query<
        Array<{ mailbox_id: string; status: string; priority: Priority; n: number; in_status: number; since_arrival: number }>
      >(
        pool,
        'reading the backlog',
        `SELECT mailbox_id, status, priority, COUNT(*) AS n,
                MAX(TIMESTAMPDIFF(SECOND, status_changed_at, CURRENT_TIMESTAMP(3))) AS in_status,
                MAX(TIMESTAMPDIFF(SECOND, created_at, CURRENT_TIMESTAMP(3))) AS since_arrival
         FROM emails WHERE status IN (${sqlList([...UNFINISHED_STATUSES, ...NEEDS_PERSON_STATUSES])})
         GROUP BY mailbox_id, status, priority`,
      );
      const dead = await query<Array<{ step: string; error_class: string; n: number }>>(
        pool,
        'reading the dead letters',
        `SELECT step, COALESCE(error_class, 'unclear') AS error_class, COUNT(*) AS n
         FROM queue_jobs WHERE status = '${QUEUE_STATUS.dead}' GROUP BY step, error_class`,
      );
      const sends = await query<Array<{ status: SendStatus; n: number }>>(
        pool,
        'reading the sends',
        'SELECT status, COUNT(*) AS n FROM send_attempts GROUP BY status',
      );
      const polls = await query<
        Array<{ mailbox_id: string; folder: string; since_success: number | null; failures: number; sign_in_refused: string | null }>
      >(
        pool,
        'reading the poll health',
        // The poll records `CODE: message` (src/mailboxes/poll.activities.ts).
        `SELECT mailbox_id, folder, TIMESTAMPDIFF(SECOND, last_success_at, CURRENT_TIMESTAMP(3)) AS since_success,
                failures_in_a_row AS failures,
                CASE WHEN last_error LIKE CONCAT(?, ':%') THEN SUBSTRING(last_error, CHAR_LENGTH(?) + 3) END AS sign_in_refused
         FROM mailbox_polls`,
        [FAILURE_TYPES.mailboxAuthExpired, FAILURE_TYPES.mailboxAuthExpired],
      );
      return {
        emails: groups.map((g): EmailGroup => ({
          mailboxId: g.mailbox_id,
          status: g.status as EmailGroup['status'],
          priority: g.priority,
          count: num(g.n),
          oldestInStatusSeconds: Math.max(0, num(g.in_status)),
          oldestSinceArrivalSeconds: Math.max(0, num(g.since_arrival)),
        })),
        deadLetters: dead.map((d) => ({ step: d.step, errorClass: d.error_class, count: num(d.n) })),
        sends: Object.fromEntries(sends.map((s) => [s.status, num(s.n)])),
        polls: polls.map((p) => ({
          mailboxId: p.mailbox_id,
          folder: p.folder,
          secondsSinceSuccess: p.since_success === null ? null : Math.max(0, num(p.since_success)),
          failuresInARow: num(p.failures),
          signInRefused: p.sign_in_refused,
        })),
      };
    },

    async eventsBetween(from: Date, to: Date): Promise<OperatingEvents> {
      const range = [from, to];
      // An email that arrived after `from` changed status after it too (status_changed_at >= created_at).
      const received = await query<Array<{ minute: string; priority: Priority; n: number }>>(
        pool,
        'reading the intake',
        `SELECT DATE_FORMAT(created_at, '%Y-%m-%d %H:%i') AS minute, priority, COUNT(*) AS n FROM emails
         WHERE status IN (${ALL_STATUSES}) AND status_changed_at > ? AND created_at > ? AND created_at <= ?
         GROUP BY minute, priority`,
        [from, ...range],
      );
      const changes = await query<Array<{ status: string; n: number }>>(
        pool,
        'reading the status changes',
        `SELECT SUBSTRING_INDEX(message, ':', 1) AS status, COUNT(*) AS n FROM audit_log
         WHERE event_type = '${PLATFORM_AUDIT_EVENTS.statusChanged}' AND created_at > ? AND created_at <= ? GROUP BY status`,
        range,
      );
      const failures = await query<Array<{ step: string | null; error_class: string; event_type: string; n: number }>>(
        pool,
        'reading the failed attempts',
        `SELECT JSON_VALUE(details, '$.step') AS step, COALESCE(error_class, 'unclear') AS error_class, event_type, COUNT(*) AS n
         FROM audit_log WHERE event_type IN ('${PLATFORM_AUDIT_EVENTS.retryScheduled}', '${PLATFORM_AUDIT_EVENTS.jobDead}') AND created_at > ? AND created_at <= ?
         GROUP BY step, error_class, event_type`,
        range,
      );
      const toDraft = await query<Array<{ seconds: number }>>(
        pool,
        'reading the time to draft',
        `SELECT TIMESTAMPDIFF(MICROSECOND, e.created_at, a.created_at) / 1e6 AS seconds
         FROM audit_log a JOIN emails e ON e.id = a.email_id
         WHERE a.event_type = '${PLATFORM_AUDIT_EVENTS.statusChanged}' AND a.created_at > ? AND a.created_at <= ? AND ${outForPerson('a')}
           AND NOT EXISTS (SELECT 1 FROM audit_log b WHERE b.email_id = a.email_id AND b.event_type = '${PLATFORM_AUDIT_EVENTS.statusChanged}'
                             AND b.id < a.id AND ${outForPerson('b')})`,
        range,
      );
      const runtimes = await query<Array<{ step: string; runtime_ms: number }>>(
        pool,
        'reading the step runtimes',
        `SELECT step, runtime_ms FROM queue_jobs
         WHERE status = '${QUEUE_STATUS.done}' AND priority IN (${ALL_PRIORITIES}) AND created_at >= ? - INTERVAL ${RUNTIME_LOOKBACK_HOURS} HOUR
           AND finished_at > ? AND finished_at <= ? AND runtime_ms IS NOT NULL`,
        [from, ...range],
      );
      return {
        received: received.map((r) => ({ minute: r.minute, priority: r.priority, count: num(r.n) })),
        statusChanges: changes.map((c) => ({ status: c.status, count: num(c.n) })),
        failures: failures.map((f) => ({
          step: f.step ?? 'unknown',
          errorClass: f.error_class,
          dead: f.event_type === PLATFORM_AUDIT_EVENTS.jobDead,
          count: num(f.n),
        })),
        timeToDraftSeconds: toDraft.map((t) => Math.max(0, num(t.seconds))),
        stepRuntimes: runtimes.map((r) => ({ step: r.step, seconds: num(r.runtime_ms) / 1000 })),
        draftOutcomes: await outcomesBetween(pool, from, to),
        triageAlerts: await triageAlertsBetween(pool, from, to),
        ...(signIns ? { loginRefusals: await signIns.refusalsBetween(from, to) } : {}),
        autonomyDemotions: await autonomyDemotionsBetween(pool, from, to),
      };
    },
  };
}

/** Abuse complaints and reply-limit holds (their audit rows) in the window. */
async function triageAlertsBetween(pool: Queryable, from: Date, to: Date) {
  const events = Object.values(TRIAGE_ALERT_EVENTS);
  const rows = await query<Array<{ event: TriageAlertEvent; n: number }>>(
    pool,
    'reading the triage alerts',
    `SELECT event_type AS event, COUNT(*) AS n FROM audit_log
      WHERE event_type IN (${events.map(() => '?').join(', ')}) AND created_at > ? AND created_at <= ? GROUP BY event_type`,
    [...events, from, to],
  );
  return rows.map((r) => ({ event: r.event, count: Number(r.n) }));
}

/** Categories demoted from automatic sending (their audit rows) in the window, per mailbox. */
async function autonomyDemotionsBetween(pool: Queryable, from: Date, to: Date) {
  const rows = await query<Array<{ mailbox: string | null; n: number }>>(
    pool,
    'reading the autonomy demotions',
    `SELECT JSON_VALUE(details, '$.mailboxId') AS mailbox, COUNT(*) AS n FROM audit_log
      WHERE event_type = ? AND created_at > ? AND created_at <= ? GROUP BY mailbox`,
    [AUTONOMY_EVENTS.demoted, from, to],
  );
  return rows.filter((r) => r.mailbox).map((r) => ({ mailbox: r.mailbox!, count: Number(r.n) }));
}
