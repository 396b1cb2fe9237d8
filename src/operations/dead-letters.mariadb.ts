import { QUEUE_STATUS } from '../platform/job-queue';
import { query, type Pool } from '../platform/pool.mariadb';
import { OPERATIONS_AUDIT_EVENTS } from './operations.contract';

export interface DeadLetter {
  id: number;
  status: string;
  correlationId: string;
  emailId: string | null;
  step: string;
  errorClass: string | null;
  lastError: string | null;
  attempts: number;
  lastRuntimeMs: number | null;
  diedAt: Date | null;
  requeueCount: number;
  requeuedBy: string | null;
}

export interface DeadLetterDetail extends DeadLetter {
  /** Where the payload lives: the stored raw message and its size, or why there is none. */
  payload: { rawMessage: string | null; rawBytes: number | null; subject: string | null; from: string | null; emailStatus: string | null };
  history: Array<{ at: Date; event: string; errorClass: string | null; message: string; actor: string | null }>;
}

interface Row {
  id: number;
  status: string;
  workflow_id: string;
  email_id: string | null;
  step: string;
  error_class: string | null;
  last_error: string | null;
  attempt: number;
  runtime_ms: number | null;
  finished_at: Date | null;
  requeue_count: number;
  requeued_by: string | null;
}

function toDeadLetter(r: Row): DeadLetter {
  return {
    id: r.id,
    status: r.status,
    correlationId: r.workflow_id,
    emailId: r.email_id,
    step: r.step,
    errorClass: r.error_class,
    lastError: r.last_error,
    attempts: r.attempt,
    lastRuntimeMs: r.runtime_ms,
    diedAt: r.finished_at,
    requeueCount: r.requeue_count,
    requeuedBy: r.requeued_by,
  };
}

/** Dead queue rows: kept with their evidence until an operator re-runs them (docs/queue-model.md). */
export function createMariaDbDeadLetters(pool: Pool) {
  return {
    async list(): Promise<DeadLetter[]> {
      const rows = await query<Row[]>(
        pool,
        'listing dead letters',
        `SELECT * FROM queue_jobs WHERE status = '${QUEUE_STATUS.dead}' ORDER BY finished_at, id`,
      );
      return rows.map(toDeadLetter);
    },

    async show(id: number): Promise<DeadLetterDetail | null> {
      const rows = await query<Row[]>(pool, 'reading a dead letter', `SELECT * FROM queue_jobs WHERE id = ?`, [id]);
      const r = rows[0];
      if (!r) return null;
      const email = r.email_id
        ? (
            await query<Array<{ subject: string | null; from_address: string | null; status: string; size: number | null }>>(
              pool,
              'reading the email of a dead letter',
              `SELECT e.subject, e.from_address, e.status, m.size FROM emails e LEFT JOIN raw_messages m ON m.email_id = e.id WHERE e.id = ?`,
              [r.email_id],
            )
          )[0]
        : undefined;
      const history = await query<
        Array<{ created_at: Date; event_type: string; error_class: string | null; message: string; actor: string | null }>
      >(
        pool,
        'reading the retry history',
        `SELECT created_at, event_type, error_class, message, actor FROM audit_log
         WHERE correlation_id = ? AND (JSON_VALUE(details, '$.step') = ? OR event_type IN ('${OPERATIONS_AUDIT_EVENTS.dlqRequeued}'))
         ORDER BY id`,
        [r.workflow_id, r.step],
      );
      return {
        ...toDeadLetter(r),
        payload: {
          rawMessage: email?.size != null ? `raw_messages.email_id = '${r.email_id}'` : null,
          rawBytes: email?.size ?? null,
          subject: email?.subject ?? null,
          from: email?.from_address ?? null,
          emailStatus: email?.status ?? null,
        },
        history: history.map((h) => ({
          at: h.created_at,
          event: h.event_type,
          errorClass: h.error_class,
          message: h.message,
          actor: h.actor,
        })),
      };
    },

    /** Puts the row back to `pending` (attempts start again) and records who did it. */
    /**
     * Marks a dead row requeued, before its step runs again, so that the new attempt finds the row
     * to take over. Null when the row is no longer dead (another operator was first). What it
     * returns puts the row back if the re-run cannot be started.
     */
    async markRequeued(id: number, by: string): Promise<RequeueMark | null> {
      const [before] = await query<RequeueMark[]>(
        pool,
        'reading a dead letter before its requeue',
        `SELECT id, attempt, requeued_by AS requeuedBy, requeued_at AS requeuedAt FROM queue_jobs WHERE id = ? AND status = '${QUEUE_STATUS.dead}'`,
        [id],
      );
      if (!before) return null;
      const r = await query<{ affectedRows: number }>(
        pool,
        'requeueing a dead letter',
        `UPDATE queue_jobs SET status = '${QUEUE_STATUS.pending}', attempt = 0, next_attempt_at = NULL, requeue_count = requeue_count + 1,
           requeued_by = ?, requeued_at = CURRENT_TIMESTAMP(3)
         WHERE id = ? AND status = '${QUEUE_STATUS.dead}'`,
        [by, id],
      );
      return r.affectedRows === 1 ? before : null;
    },

    /** The re-run could not be started: the row is dead again, as it was before the mark. */
    async undoRequeue(mark: RequeueMark, by: string): Promise<void> {
      await query(
        pool,
        'putting a dead letter back after a failed requeue',
        `UPDATE queue_jobs SET status = '${QUEUE_STATUS.dead}', attempt = ?, requeue_count = requeue_count - 1, requeued_by = ?, requeued_at = ?
         WHERE id = ? AND status = '${QUEUE_STATUS.pending}' AND requeued_by = ?`,
        [mark.attempt, mark.requeuedBy, mark.requeuedAt, mark.id, by],
      );
    },
  };
}

/** A dead row's fields as they were before a requeue marked it. */
export interface RequeueMark {
  id: number;
  attempt: number;
  requeuedBy: string | null;
  requeuedAt: Date | null;
}
