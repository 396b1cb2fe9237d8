import { CASE_SETTLED_STATUSES } from './case-status';
import { type Priority } from '../triage';
import type { CaseClock, CaseClockDue, CaseClockRow, CaseEventRecord } from './case-clock.port';
import { CASE_CLOCK_DUE } from './cases.contract';
import { query, sqlList, type Pool } from '../platform/pool.mariadb';
import { insertCaseEvent } from './case-events.mariadb';
import { inTransaction } from '../platform/transaction.mariadb';

interface Row {
  id: string;
  mailbox_id: string;
  correspondent: string;
  subject: string;
  status: CaseClockRow['status'];
  priority: Priority;
  waiting_since: Date | null;
  due_at: Date | null;
  remind_at: Date | null;
  reminded_at: Date | null;
  breached_at: Date | null;
  escalated_at: Date | null;
  deadline_basis: Date | null;
  deadline_priority: Priority | null;
  oldest_email: string | null;
}

/** The case runs: open and a customer's mail unanswered. */
const RUNNING = `status = 'open' AND waiting_since IS NOT NULL`;
/** A running case whose stored deadline was not planned for its current wait and priority. */
const UNPLANNED = `${RUNNING} AND (due_at IS NULL OR NOT (deadline_basis <=> waiting_since) OR NOT (deadline_priority <=> priority))`;
/** When a case waiting for its customer closes: CASE_WINDOW_DAYS after our last reply (closeIfQuiet's rule). */
const QUIET_FROM = `COALESCE(last_reply_at, opened_at)`;
/** The case_clock table's one row. */
const CLOCK_ROW = 1;

/**
 * Runs `update` and, when it changed the row, records `event`, in one transaction: a crash
 * between the two cannot leave a reminder or breach without its history row.
 */
function updateWithEvent(pool: Pool, what: string, sql: string, params: unknown[], event: CaseEventRecord): Promise<boolean> {
  return inTransaction(pool, what, async (conn) => {
    const res = await query<{ affectedRows: number }>(conn, what, sql, params);
    if (res.affectedRows > 0) await insertCaseEvent(conn, event);
    return res.affectedRows > 0;
  });
}

export function createMariaDbCaseClock(pool: Pool): CaseClock {
  return {
    async get(caseId) {
      const rows = await query<Row[]>(
        pool,
        'reading a case',
        `SELECT c.id, c.mailbox_id, c.correspondent, c.subject, c.status, c.priority, c.waiting_since, c.due_at, c.remind_at,
                c.reminded_at, c.breached_at, c.escalated_at, c.deadline_basis, c.deadline_priority,
                (SELECT e.id FROM emails e WHERE e.case_id = c.id
                  ORDER BY e.status IN (${sqlList(CASE_SETTLED_STATUSES)}), COALESCE(e.sent_date, e.created_at), e.created_at, e.id LIMIT 1) AS oldest_email
           FROM cases c WHERE c.id = ?`,
        [caseId],
      );
      const r = rows[0];
      if (!r) return null;
      return {
        id: r.id,
        mailboxId: r.mailbox_id,
        correspondent: r.correspondent,
        subject: r.subject,
        status: r.status,
        priority: r.priority,
        waitingSince: r.waiting_since,
        dueAt: r.due_at,
        remindAt: r.remind_at,
        remindedAt: r.reminded_at,
        breachedAt: r.breached_at,
        escalatedAt: r.escalated_at,
        deadlineBasis: r.deadline_basis,
        deadlinePriority: r.deadline_priority,
        oldestWaitingEmailId: r.oldest_email,
      };
    },

    setDeadline(caseId, plan, event) {
      return updateWithEvent(
        pool,
        'planning a case deadline',
        // A new wait (another basis) starts a new clock; a new priority on the same wait keeps what happened.
        `UPDATE cases SET
           reminded_at = IF(deadline_basis <=> ?, reminded_at, NULL),
           breached_at = IF(deadline_basis <=> ?, breached_at, NULL),
           escalated_at = IF(deadline_basis <=> ?, escalated_at, NULL),
           due_at = ?, remind_at = ?, deadline_basis = ?, deadline_priority = ?
         WHERE id = ? AND ${RUNNING} AND waiting_since = ?`,
        [
          plan.waitingSince,
          plan.waitingSince,
          plan.waitingSince,
          plan.dueAt,
          plan.remindAt,
          plan.waitingSince,
          plan.priority,
          caseId,
          plan.waitingSince,
        ],
        event,
      );
    },

    async clearDeadline(caseId) {
      // The basis stays: the same wait resumed keeps its reminder and breach, a new one plans afresh.
      await query(
        pool,
        'pausing a case deadline',
        `UPDATE cases SET due_at = NULL, remind_at = NULL WHERE id = ? AND (due_at IS NOT NULL OR remind_at IS NOT NULL)`,
        [caseId],
      );
    },

    markReminded(caseId, dueAt, raised, at, event) {
      return updateWithEvent(
        pool,
        'recording a case reminder',
        `UPDATE cases SET reminded_at = ?, priority = ?, deadline_priority = ?
          WHERE id = ? AND ${RUNNING} AND due_at = ? AND reminded_at IS NULL`,
        [at, raised, raised, caseId, dueAt],
        event,
      );
    },

    markBreached(caseId, dueAt, at, event) {
      return updateWithEvent(
        pool,
        'recording a missed case deadline',
        `UPDATE cases SET breached_at = ? WHERE id = ? AND ${RUNNING} AND due_at = ? AND breached_at IS NULL`,
        [at, caseId, dueAt],
        event,
      );
    },

    async markEscalated(caseId, dueAt, at) {
      await query(
        pool,
        'recording a case escalation',
        `UPDATE cases SET escalated_at = ? WHERE id = ? AND due_at = ? AND escalated_at IS NULL`,
        [at, caseId, dueAt],
      );
    },

    addEvent(event) {
      return insertCaseEvent(pool, event);
    },

    async event(eventKey) {
      const rows = await query<Array<{ details: unknown }>>(
        pool,
        'reading a case event',
        'SELECT details FROM case_events WHERE event_key = ?',
        [eventKey],
      );
      if (!rows[0]) return null;
      const d = rows[0].details;
      // The driver returns JSON columns as text or as parsed objects depending on the server.
      const details = typeof d === 'string' ? (JSON.parse(d) as Record<string, unknown>) : ((d as Record<string, unknown> | null) ?? null);
      return { details };
    },

    async due(now, windowDays, limit) {
      // Four small reads on (status, …) indexes; a backlog larger than `limit` is taken on the next round.
      const read = async (kind: CaseClockDue['kind'], sql: string, params: unknown[]): Promise<CaseClockDue[]> => {
        const rows = await query<Array<{ id: string; due_at: Date | null }>>(pool, 'reading what the case clock has due', sql, [
          ...params,
          limit,
        ]);
        return rows.map((r) => ({ caseId: r.id, kind, dueAt: r.due_at }));
      };
      return [
        ...(await read(CASE_CLOCK_DUE.plan, `SELECT id, NULL AS due_at FROM cases WHERE ${UNPLANNED} ORDER BY id LIMIT ?`, [])),
        ...(await read(
          CASE_CLOCK_DUE.remind,
          `SELECT id, due_at FROM cases WHERE ${RUNNING} AND remind_at <= ? AND reminded_at IS NULL AND due_at IS NOT NULL ORDER BY remind_at LIMIT ?`,
          [now],
        )),
        ...(await read(
          CASE_CLOCK_DUE.breach,
          `SELECT id, due_at FROM cases WHERE ${RUNNING} AND due_at <= ? AND breached_at IS NULL ORDER BY due_at LIMIT ?`,
          [now],
        )),
        ...(await read(
          CASE_CLOCK_DUE.close,
          `SELECT id, NULL AS due_at FROM cases WHERE status = 'waiting_for_customer' AND ${QUIET_FROM} <= ? - INTERVAL ? DAY ORDER BY ${QUIET_FROM} LIMIT ?`,
          [now, windowDays],
        )),
      ];
    },

    async nextDue(now, windowDays) {
      const rows = await query<Array<{ at: Date | null }>>(
        pool,
        'reading when the case clock is due next',
        `SELECT MIN(at) AS at FROM (
           (SELECT MIN(remind_at) AS at FROM cases WHERE ${RUNNING} AND remind_at > ? AND reminded_at IS NULL)
           UNION ALL (SELECT MIN(due_at) FROM cases WHERE ${RUNNING} AND due_at > ? AND breached_at IS NULL)
           UNION ALL (SELECT MIN(${QUIET_FROM}) + INTERVAL ? DAY FROM cases WHERE status = 'waiting_for_customer')
         ) t`,
        [now, now, windowDays],
      );
      return rows[0]?.at ?? null;
    },

    async setNextWake(at) {
      await query(pool, 'recording when the case clock wakes', 'UPDATE case_clock SET next_wake_at = ? WHERE id = ?', [at, CLOCK_ROW]);
    },

    async lowerNextWake(at) {
      // Read first: nearly every plan is later than the clock's next wake, and a read takes no row lock.
      const rows = await query<Array<{ next_wake_at: Date | null }>>(
        pool,
        'reading when the case clock wakes',
        'SELECT next_wake_at FROM case_clock WHERE id = ?',
        [CLOCK_ROW],
      );
      const known = rows[0]?.next_wake_at ?? null;
      if (known !== null && known.getTime() <= at.getTime()) return false;
      // Conditional in the statement too: two steps lowering it at once both see it lowered only if each did.
      const res = await query<{ affectedRows: number }>(
        pool,
        'moving the case clock earlier',
        'UPDATE case_clock SET next_wake_at = ? WHERE id = ? AND (next_wake_at IS NULL OR next_wake_at > ?)',
        [at, CLOCK_ROW, at],
      );
      return res.affectedRows > 0;
    },
  };
}
