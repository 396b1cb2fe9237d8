import type { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import { stepScope, type StepTracker } from '../src/email';
import { QUEUE_STATUS, type JobAttempt, type JobLedger } from '../src/platform/job-queue';
import { type Priority } from '../src/triage';
import { errorMessage, StandDownError } from '../src/platform/errors';
import { decideRetry, type RetryDecision } from '../src/platform/retry-decision';
import type { AuditLog } from '../src/platform/store.port';
import { HEARTBEAT_EVERY_MS, HEARTBEAT_TIMEOUT, PROFILES } from '../src/platform/activity-profiles.workflow';
import { planOf, type ActivityPlanEntry } from '../activities/activity-plan';
import { countedAttempt, newlyLostAttempts, type PriorAttempt } from '../src/platform/lost-attempts';
import { PLATFORM_AUDIT_EVENTS } from '../src/platform/contract';
import { attemptDeadline, type AttemptDeadline } from '../src/platform/attempt-deadline';

const PRIORITY_BY_KEY: Record<number, Priority> = { 1: 'critical', 2: 'high', 3: 'normal', 4: 'low', 5: 'low' };

/** What Temporal gets: the decision's retry (or none) and what the workflow reads (error class, step). */
function failureOf(d: RetryDecision, step: string, attempt: number, err: unknown): ApplicationFailure {
  return ApplicationFailure.create({
    message: d.message,
    type: d.code,
    nonRetryable: !d.retry,
    nextRetryDelay: d.retry ? d.delayMs : undefined,
    details: [{ errorClass: d.errorClass, step, attempt }],
    cause: err instanceof Error ? err : undefined,
  });
}

/** The plan of an activity a combined activity runs as a step: it must have one. */
function plannedStep(activity: string): ActivityPlanEntry {
  const plan = planOf(activity);
  if (!plan) throw new Error(`no queue step is planned for ${activity}`);
  return plan;
}

/** A step of a combined activity that finished; its row is written with the next step's start. */
interface FinishedStep {
  job: JobAttempt;
  runtimeMs: number;
}

/** The finished step whose done row is not written yet, of one attempt of a combined activity. */
interface StepRows {
  finished(step: FinishedStep): void;
  /** The waiting done row, for the next step's start to write with it. */
  take(): FinishedStep | undefined;
  /** Writes the waiting done row on its own (the activity ends). */
  flush(): Promise<void>;
}

function stepRows(ledger: JobLedger): StepRows {
  let waiting: FinishedStep | undefined;
  const take = (): FinishedStep | undefined => {
    const step = waiting;
    waiting = undefined;
    return step;
  };
  return {
    finished: (step) => {
      waiting = step;
    },
    take,
    async flush() {
      const step = take();
      if (step) await ledger.succeeded(step.job, step.runtimeMs);
    },
  };
}

/** Failures already classified and booked by a step: the combined activity passes them on unchanged. */
const booked = new WeakSet<object>();

/**
 * The one mechanism that moves `queue_jobs` rows and decides retries: every activity attempt
 * passes through here, so activities never write queue rows themselves. An activity that runs
 * several steps (ACTIVITY_PLAN `steps`) gets one row per step, each with its own attempt count
 * and retry plan; the activity's retry then follows the plan of the step that failed.
 */
export function createQueueInterceptor(ledger: JobLedger, audit: AuditLog) {
  return (ctx: Context): { inbound: ActivityInboundCallsInterceptor } => {
    const info = ctx.info;
    const arg = (input: ActivityExecuteInput) => input.args[0] as { emailId?: unknown } | undefined;
    const jobFor = (input: ActivityExecuteInput, plan: ActivityPlanEntry, attempt: number): JobAttempt => ({
      workflowId: info.workflowExecution?.workflowId ?? `activity-${info.activityId}`,
      runId: info.workflowExecution?.runId ?? '',
      emailId: typeof arg(input)?.emailId === 'string' ? (arg(input)?.emailId as string) : null,
      step: plan.step,
      // A local activity that backs off on a timer comes back with a new id (the next sequence
      // number) and the next attempt: its rows are keyed by its type, one per run, so that the
      // attempts of its steps keep counting instead of starting over at 1.
      activityId: info.isLocal ? `local:${info.activityType}` : info.activityId,
      attempt,
      maxAttempts: PROFILES[plan.profile].plan.maximumAttempts,
      priority: PRIORITY_BY_KEY[info.priority?.priorityKey ?? 3] ?? 'normal',
    });

    /**
     * Attempts before this one that ended with their worker: counted on the row (not against the
     * step's budget) and told in the audit log. Reading the row costs a query on retries only.
     */
    async function withLost(job: JobAttempt, prior: PriorAttempt | undefined): Promise<JobAttempt> {
      const lostNow = newlyLostAttempts(prior, job.attempt);
      const counted = { ...job, lost: (prior?.lost ?? 0) + lostNow };
      if (lostNow === 0) return counted;
      const budget = job.maxAttempts > 0 ? `its ${job.maxAttempts} attempts` : 'its attempts';
      await audit
        .record({
          emailId: job.emailId,
          correlationId: job.workflowId,
          eventType: PLATFORM_AUDIT_EVENTS.attemptLost,
          errorClass: 'transient',
          message: `${job.step}: ${lostNow === 1 ? `attempt ${job.attempt - 1}` : `${lostNow} attempts before ${job.attempt}`} ended with the worker that ran it (no heartbeat for ${HEARTBEAT_TIMEOUT}); run again as attempt ${job.attempt}, not counted against ${budget}`,
          details: { step: job.step, attempt: job.attempt, lost: counted.lost, maxAttempts: job.maxAttempts },
          eventKey: `${job.workflowId}/${job.runId}:${job.activityId}:${job.step}:${job.attempt}:lost`,
        })
        .catch((e: unknown) => ctx.log.warn('audit row not written', { error: errorMessage(e) }));
      ctx.log.warn(`${job.step}: an earlier attempt ended with its worker`, { attempt: job.attempt, lost: counted.lost });
      return counted;
    }

    /** One attempt of one step: its row moves to processing, then done, failed (retry) or dead. */
    async function track<T>(
      job: JobAttempt,
      plan: ActivityPlanEntry,
      eventKey: string,
      fn: () => Promise<T>,
      options: { takeOver?: boolean; steps?: StepRows } = {},
    ): Promise<T> {
      const startedAt = Date.now();
      const before = options.steps?.take();
      if (before) await ledger.succeededThenStarted(before.job, before.runtimeMs, job);
      else await ledger.started(job, options);
      try {
        const result = await fn();
        // A step's done row waits for the next step's start, which writes both at once.
        if (options.steps) options.steps.finished({ job, runtimeMs: Date.now() - startedAt });
        else await ledger.succeeded(job, Date.now() - startedAt);
        return result;
      } catch (err) {
        if (err instanceof Object && booked.has(err)) throw err;
        if (err instanceof StandDownError) return await stoodDown(job, plan, Date.now() - startedAt, err);
        const d = decideRetry(err, countedAttempt(job.attempt, job.lost ?? 0), PROFILES[plan.profile].plan);
        const runtimeMs = Date.now() - startedAt;
        const nextAttemptAt = d.retry && d.delayMs !== undefined ? new Date(Date.now() + d.delayMs) : null;
        // Bookkeeping must not hide the real failure: if MariaDB is down too, log and go on.
        await ledger
          .failed(job, {
            status: d.retry ? QUEUE_STATUS.failed : QUEUE_STATUS.dead,
            errorClass: d.errorClass,
            error: d.message,
            nextAttemptAt,
            runtimeMs,
          })
          .catch((e: unknown) => ctx.log.warn('queue row not updated', { error: errorMessage(e) }));
        await audit
          .record({
            emailId: job.emailId,
            correlationId: job.workflowId,
            eventType: d.retry ? PLATFORM_AUDIT_EVENTS.retryScheduled : PLATFORM_AUDIT_EVENTS.jobDead,
            errorClass: d.errorClass,
            message: `${plan.step} attempt ${job.attempt} failed (${d.code}): ${d.message}${
              d.retry ? `; next attempt in ${Math.round((d.delayMs ?? 0) / 1000)} s` : '; no automatic retry left'
            }`,
            details: { step: plan.step, attempt: job.attempt, code: d.code, delayMs: d.delayMs ?? null },
            eventKey,
          })
          .catch((e: unknown) => ctx.log.warn('audit row not written', { error: errorMessage(e) }));
        ctx.log.warn(`${plan.step} failed`, { code: d.code, errorClass: d.errorClass, attempt: job.attempt, retry: d.retry });
        const failure = failureOf(d, plan.step, job.attempt, err);
        booked.add(failure);
        throw failure;
      }
    }

    /** A step that stood down on purpose: its row is done, and the workflow hears why (never retried). */
    async function stoodDown(job: JobAttempt, plan: ActivityPlanEntry, runtimeMs: number, err: StandDownError): Promise<never> {
      await ledger.succeeded(job, runtimeMs).catch((e: unknown) => ctx.log.warn('queue row not updated', { error: errorMessage(e) }));
      const failure = ApplicationFailure.create({
        message: err.message,
        type: err.code,
        nonRetryable: true,
        details: [{ errorClass: err.errorClass, step: plan.step, attempt: job.attempt }],
      });
      booked.add(failure);
      throw failure;
    }

    /** Steps of a combined activity: attempts counted per step from their rows (a retry re-runs finished steps untracked). */
    async function stepTracker(input: ActivityExecuteInput, rows: StepRows, deadline: AttemptDeadline | undefined): Promise<StepTracker> {
      const own = planOf(info.activityType)!;
      const job = jobFor(input, own, info.attempt);
      const steps = (own.steps ?? []).map((a) => plannedStep(a).step);
      // The first attempt takes over requeued rows of all its steps at once; later ones read the steps' attempts.
      const earlier = info.attempt > 1 ? await ledger.stepAttempts(job.workflowId, job.runId, job.activityId) : {};
      if (info.attempt === 1) await ledger.takeOverSteps(job, steps);
      return {
        async run<T>(activity: string, fn: () => Promise<T>): Promise<T> {
          const plan = plannedStep(activity);
          const row = earlier[plan.step];
          if (row?.status === QUEUE_STATUS.done) return fn();
          const attempt = row ? row.attempt + 1 : 1;
          const stepJob = await withLost(jobFor(input, plan, attempt), row);
          const key = `${job.workflowId}/${job.runId}:${job.activityId}:${plan.step}:${attempt}:failed`;
          return track(stepJob, plan, key, () => (deadline ? deadline.race(fn()) : fn()), { takeOver: false, steps: rows });
        },
      };
    }

    return {
      inbound: {
        async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
          const plan = planOf(info.activityType);
          if (!plan) return next(input);
          // A local activity cannot heartbeat: the workflow task that runs it is its lease. Beats
          // come well inside the heartbeat timeout the caller set (four to one).
          const every = Math.min(HEARTBEAT_EVERY_MS, Math.max(100, (info.heartbeatTimeoutMs ?? HEARTBEAT_EVERY_MS * 4) / 4));
          const beat = info.isLocal ? undefined : setInterval(() => ctx.heartbeat(), every);
          beat?.unref();
          // A hung attempt is given up by its live worker before Temporal's start-to-close timeout
          // would end it: a failure of the step, not an attempt lost with its worker (src/platform/attempt-deadline.ts).
          const deadline = info.isLocal || !(info.startToCloseTimeoutMs > 0) ? undefined : attemptDeadline(info.startToCloseTimeoutMs);
          try {
            if (!plan.steps) {
              const first = jobFor(input, plan, info.attempt);
              const prior = info.attempt > 1 && !info.isLocal ? await ledger.priorAttempt(first).catch(() => undefined) : undefined;
              const job = await withLost(first, prior);
              const work = () => (deadline ? deadline.race(next(input)) : next(input));
              return await track(job, plan, `${job.workflowId}/${job.runId}:${info.activityId}:${info.attempt}:failed`, work);
            }
            const rows = stepRows(ledger);
            const tracker = await stepTracker(input, rows, deadline);
            try {
              const result = await stepScope.run(tracker, () => next(input));
              await rows.flush();
              return result;
            } catch (err) {
              // The last finished step is done whatever failed after it.
              await rows.flush().catch((e: unknown) => ctx.log.warn('queue row not updated', { error: errorMessage(e) }));
              if (err instanceof Object && booked.has(err)) throw err;
              // Outside any step (rare): the combined activity's own plan decides.
              throw failureOf(decideRetry(err, info.attempt, PROFILES[plan.profile].plan), plan.step, info.attempt, err);
            }
          } finally {
            clearInterval(beat);
            deadline?.clear();
          }
        },
      },
    };
  };
}
