import type { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import type { Priority } from '../lib/domain';
import { errorMessage } from '../lib/errors';
import { decideRetry } from '../lib/retry-decision';
import type { AuditLog, JobAttempt, JobLedger } from '../ports/store';
import { ACTIVITY_PLAN, HEARTBEAT_EVERY_MS, PROFILES } from '../workflows/activity-profiles';

const PRIORITY_BY_KEY: Record<number, Priority> = { 1: 'critical', 2: 'high', 3: 'normal', 4: 'low', 5: 'low' };

/**
 * The one mechanism that moves `queue_jobs` rows and decides retries: every activity attempt
 * passes through here, so activities never write queue rows themselves.
 */
export function createQueueInterceptor(ledger: JobLedger, audit: AuditLog) {
  return (ctx: Context): { inbound: ActivityInboundCallsInterceptor } => ({
    inbound: {
      async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
        const info = ctx.info;
        const plan = ACTIVITY_PLAN[info.activityType];
        if (!plan) return next(input);
        const retryPlan = PROFILES[plan.profile].plan;
        const arg = input.args[0] as { emailId?: unknown } | undefined;
        const job: JobAttempt = {
          workflowId: info.workflowExecution?.workflowId ?? `activity-${info.activityId}`,
          runId: info.workflowExecution?.runId ?? '',
          emailId: typeof arg?.emailId === 'string' ? arg.emailId : null,
          step: plan.step,
          activityId: info.activityId,
          attempt: info.attempt,
          maxAttempts: retryPlan.maximumAttempts,
          priority: PRIORITY_BY_KEY[info.priority?.priorityKey ?? 3] ?? 'normal',
        };
        const startedAt = Date.now();
        await ledger.started(job);
        const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_EVERY_MS);
        beat.unref();
        try {
          const result = await next(input);
          await ledger.succeeded(job, Date.now() - startedAt);
          return result;
        } catch (err) {
          const d = decideRetry(err, info.attempt, retryPlan);
          const runtimeMs = Date.now() - startedAt;
          const nextAttemptAt = d.retry && d.delayMs !== undefined ? new Date(Date.now() + d.delayMs) : null;
          // Bookkeeping must not hide the real failure: if MariaDB is down too, log and go on.
          await ledger
            .failed(job, { status: d.retry ? 'failed' : 'dead', errorClass: d.errorClass, error: d.message, nextAttemptAt, runtimeMs })
            .catch((e: unknown) => ctx.log.warn('queue row not updated', { error: errorMessage(e) }));
          await audit
            .record({
              emailId: job.emailId,
              correlationId: job.workflowId,
              eventType: d.retry ? 'retry_scheduled' : 'job_dead',
              errorClass: d.errorClass,
              message: `${plan.step} attempt ${info.attempt} failed (${d.code}): ${d.message}${
                d.retry ? `; next attempt in ${Math.round((d.delayMs ?? 0) / 1000)} s` : '; no automatic retry left'
              }`,
              details: { step: plan.step, attempt: info.attempt, code: d.code, delayMs: d.delayMs ?? null },
              eventKey: `${job.workflowId}/${job.runId}:${info.activityId}:${info.attempt}:failed`,
            })
            .catch((e: unknown) => ctx.log.warn('audit row not written', { error: errorMessage(e) }));
          ctx.log.warn(`${plan.step} failed`, { code: d.code, errorClass: d.errorClass, attempt: info.attempt, retry: d.retry });
          throw ApplicationFailure.create({
            message: d.message,
            type: d.code,
            nonRetryable: !d.retry,
            nextRetryDelay: d.retry ? d.delayMs : undefined,
            details: [{ errorClass: d.errorClass, step: plan.step, attempt: info.attempt }],
            cause: err instanceof Error ? err : undefined,
          });
        } finally {
          clearInterval(beat);
        }
      },
    },
  });
}
