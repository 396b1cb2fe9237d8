import type { StepName } from './contract';
import { QUEUE_STATUS, type QueueStatus, type JobAttempt, type JobFailure, type JobLedger } from './job-queue';
import type { PriorAttempt } from './lost-attempts';
import { query, type Pool } from './pool.mariadb';

const priorOf = (r: { attempt: number; status: QueueStatus; lost_attempts: number }): PriorAttempt => ({
  attempt: Number(r.attempt),
  status: r.status,
  lost: Number(r.lost_attempts),
});

export function createMariaDbJobLedger(pool: Pool): JobLedger {
  /**
   * A dead step an operator requeued runs again as a new activity (or a new run): that row
   * carries on as this job's row, so it ends done instead of waiting as pending forever.
   */
  const takeOver = async (job: JobAttempt, steps: StepName[]): Promise<void> => {
    await query(
      pool,
      'taking over a requeued queue row',
      `UPDATE IGNORE queue_jobs SET run_id = ?, activity_id = ?
       WHERE workflow_id = ? AND step IN (?) AND status = '${QUEUE_STATUS.pending}' AND requeued_by IS NOT NULL AND NOT (run_id = ? AND activity_id = ?)
       ORDER BY id DESC${steps.length === 1 ? ' LIMIT 1' : ''}`,
      [job.runId, job.activityId, job.workflowId, steps, job.runId, job.activityId],
    );
  };
  /**
   * `next` starts (processing), and `done`, when given, succeeded: one upsert keyed by (workflow,
   * run, step, activity) for both. `attempt` only moves forward, so a duplicated delivery of an
   * older attempt does not rewind a row; retry_count is derived from it, never incremented. The
   * done row exists (its step started), so it takes the update branch; VALUES(status) tells the
   * branches apart. `status` and `attempt` are assigned last: the other assignments compare with
   * their old values.
   */
  const upsertRows = async (done: { job: JobAttempt; runtimeMs: number } | null, next: JobAttempt): Promise<void> => {
    const starting = `VALUES(status) = '${QUEUE_STATUS.processing}' AND VALUES(attempt) >= attempt AND status <> '${QUEUE_STATUS.done}'`;
    const row = (j: JobAttempt, status: typeof QUEUE_STATUS.done | typeof QUEUE_STATUS.processing, runtimeMs: number | null) => [
      ...[j.workflowId, j.runId, j.emailId, j.step, j.activityId, status, j.priority, j.attempt, j.attempt - 1, j.lost ?? 0, j.maxAttempts],
      runtimeMs,
    ];
    const rows = [
      ...(done ? [row(done.job, QUEUE_STATUS.done, Math.round(done.runtimeMs))] : []),
      row(next, QUEUE_STATUS.processing, null),
    ];
    await query(
      pool,
      done ? 'marking a queue row done and the next one processing' : 'marking a queue row processing',
      `INSERT INTO queue_jobs (workflow_id, run_id, email_id, step, activity_id, status, priority, attempt, retry_count, lost_attempts,
         max_attempts, runtime_ms, started_at)
       VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP(3))').join(', ')}
       ON DUPLICATE KEY UPDATE
         finished_at = IF(VALUES(status) = '${QUEUE_STATUS.done}', CURRENT_TIMESTAMP(3), finished_at),
         runtime_ms = IF(VALUES(status) = '${QUEUE_STATUS.done}', VALUES(runtime_ms), runtime_ms),
         started_at = IF(${starting}, CURRENT_TIMESTAMP(3), started_at),
         next_attempt_at = IF(VALUES(status) = '${QUEUE_STATUS.done}' OR (${starting}), NULL, next_attempt_at),
         retry_count = IF(VALUES(status) = '${QUEUE_STATUS.done}', retry_count, GREATEST(retry_count, VALUES(retry_count))),
         lost_attempts = GREATEST(lost_attempts, VALUES(lost_attempts)),
         max_attempts = IF(VALUES(status) = '${QUEUE_STATUS.done}', max_attempts, VALUES(max_attempts)),
         status = IF(VALUES(status) = '${QUEUE_STATUS.done}', '${QUEUE_STATUS.done}', IF(${starting}, '${QUEUE_STATUS.processing}', status)),
         attempt = GREATEST(attempt, VALUES(attempt))`,
      rows.flat(),
    );
  };
  return {
    /** One round trip for the requeued rows of every step of a combined activity (its steps then skip it). */
    takeOverSteps: (job: JobAttempt, steps: StepName[]) => takeOver(job, steps),

    async started(job: JobAttempt, options: { takeOver?: boolean } = {}): Promise<void> {
      if (job.attempt === 1 && options.takeOver !== false) await takeOver(job, [job.step]);
      await upsertRows(null, job);
    },

    async succeeded(job: JobAttempt, runtimeMs: number): Promise<void> {
      await query(
        pool,
        'marking a queue row done',
        `UPDATE queue_jobs SET status = '${QUEUE_STATUS.done}', finished_at = CURRENT_TIMESTAMP(3), runtime_ms = ?,
           next_attempt_at = NULL, attempt = GREATEST(attempt, ?)
         WHERE workflow_id = ? AND run_id = ? AND step = ? AND activity_id = ?`,
        [Math.round(runtimeMs), job.attempt, job.workflowId, job.runId, job.step, job.activityId],
      );
    },

    succeededThenStarted: (done: JobAttempt, runtimeMs: number, next: JobAttempt) => upsertRows({ job: done, runtimeMs }, next),

    async failed(job: JobAttempt, f: JobFailure): Promise<void> {
      await query(
        pool,
        `marking a queue row ${f.status}`,
        `UPDATE queue_jobs SET status = ?, error_class = ?, last_error = ?, next_attempt_at = ?,
           finished_at = CURRENT_TIMESTAMP(3), runtime_ms = ?, retry_count = GREATEST(retry_count, ?)
         WHERE workflow_id = ? AND run_id = ? AND step = ? AND activity_id = ? AND attempt <= ? AND status <> '${QUEUE_STATUS.done}'`,
        [
          f.status,
          f.errorClass,
          f.error.slice(0, 60_000),
          f.nextAttemptAt,
          Math.round(f.runtimeMs),
          f.status === QUEUE_STATUS.failed ? job.attempt : job.attempt - 1,
          job.workflowId,
          job.runId,
          job.step,
          job.activityId,
          job.attempt,
        ],
      );
    },

    async stepAttempts(workflowId: string, runId: string, activityId: string) {
      const rows = await query<Array<{ step: StepName; attempt: number; status: QueueStatus; lost_attempts: number }>>(
        pool,
        'reading the step rows of an activity',
        'SELECT step, attempt, status, lost_attempts FROM queue_jobs WHERE workflow_id = ? AND run_id = ? AND activity_id = ?',
        [workflowId, runId, activityId],
      );
      return Object.fromEntries(rows.map((r) => [r.step, priorOf(r)]));
    },

    async priorAttempt(job: JobAttempt) {
      const rows = await query<Array<{ attempt: number; status: QueueStatus; lost_attempts: number }>>(
        pool,
        'reading a queue row before a retry',
        'SELECT attempt, status, lost_attempts FROM queue_jobs WHERE workflow_id = ? AND run_id = ? AND step = ? AND activity_id = ?',
        [job.workflowId, job.runId, job.step, job.activityId],
      );
      return rows[0] ? priorOf(rows[0]) : undefined;
    },

    async countByStatus(): Promise<Record<string, number>> {
      const rows = await query<Array<{ status: string; n: number }>>(
        pool,
        'counting queue rows',
        'SELECT status, COUNT(*) AS n FROM queue_jobs GROUP BY status',
      );
      return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    },

    async findStuck(olderThanSeconds: number) {
      const rows = await query<
        Array<{ id: number; workflow_id: string; email_id: string | null; step: string; activity_id: string; started_at: Date }>
      >(
        pool,
        'finding stuck queue rows',
        `SELECT id, workflow_id, email_id, step, activity_id, started_at FROM queue_jobs
         WHERE status = '${QUEUE_STATUS.processing}' AND started_at < CURRENT_TIMESTAMP(3) - INTERVAL ? SECOND ORDER BY started_at`,
        [olderThanSeconds],
      );
      return rows.map((r) => ({
        id: r.id,
        workflowId: r.workflow_id,
        emailId: r.email_id,
        step: r.step,
        activityId: r.activity_id,
        startedAt: r.started_at,
      }));
    },

    async resetStuck(id: number, reason: string, nextAttemptAt: Date | null): Promise<boolean> {
      const res = await query<{ affectedRows: number }>(
        pool,
        'resetting a stuck queue row',
        `UPDATE queue_jobs SET status = '${QUEUE_STATUS.failed}', error_class = 'unclear', last_error = ?, next_attempt_at = ?,
           finished_at = CURRENT_TIMESTAMP(3), lost_attempts = lost_attempts + 1
         WHERE id = ? AND status = '${QUEUE_STATUS.processing}'`,
        [reason, nextAttemptAt, id],
      );
      return res.affectedRows > 0;
    },
  };
}
