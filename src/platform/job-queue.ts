/**
 * The job queue: one row per (workflow, step) in `queue_jobs` with its technical status, attempts
 * and next retry, written by the worker's queue interceptor around every planned activity
 * (docs/queue-model.md). Infrastructure every feature's steps run through.
 */
import type { StepName } from './contract';
import type { ErrorClass } from './errors';
/** Technical status of one (email, step) job (table `queue_jobs`). */
export const QUEUE_STATUS = {
  pending: 'pending',
  processing: 'processing',
  done: 'done',
  /** Failed, a retry is scheduled. */
  failed: 'failed',
  /** Failed for good: a dead letter for a person (`dlq`). */
  dead: 'dead',
} as const;

export type QueueStatus = (typeof QUEUE_STATUS)[keyof typeof QUEUE_STATUS];

export const QUEUE_STATUSES: readonly QueueStatus[] = Object.freeze(Object.values(QUEUE_STATUS));

export interface JobAttempt {
  workflowId: string;
  /** The workflow run: a reset run's activity ids start again at 1 and must get rows of their own. */
  runId: string;
  emailId: string | null;
  step: StepName;
  activityId: string;
  attempt: number;
  maxAttempts: number;
  /** The priority word of the step's email (src/triage/priorities.ts): the row's `priority` column. */
  priority: string;
  /** Attempts of this step that ended with their worker, this one's predecessors (not counted against the budget). */
  lost?: number;
}

export interface JobFailure {
  status: typeof QUEUE_STATUS.failed | typeof QUEUE_STATUS.dead;
  errorClass: ErrorClass;
  error: string;
  nextAttemptAt: Date | null;
  runtimeMs: number;
}

/** One `queue_jobs` row per (workflow, step), moved by every activity attempt. */
export interface JobLedger {
  /** `takeOver: false`: the step's requeued row was taken over already (see takeOverSteps). */
  started(job: JobAttempt, options?: { takeOver?: boolean }): Promise<void>;
  /** Takes over the requeued rows of several steps of one activity in one write (a combined activity's first attempt). */
  takeOverSteps(job: JobAttempt, steps: StepName[]): Promise<void>;
  succeeded(job: JobAttempt, runtimeMs: number): Promise<void>;
  /**
   * One write for two consecutive steps of a combined activity: `done` succeeded (as `succeeded`)
   * and `next` starts (as `started` without a take-over).
   */
  succeededThenStarted(done: JobAttempt, runtimeMs: number, next: JobAttempt): Promise<void>;
  failed(job: JobAttempt, failure: JobFailure): Promise<void>;
  /** The rows of one activity's steps (a combined activity's retry counts each step's attempts from them). */
  stepAttempts(workflowId: string, runId: string, activityId: string): Promise<Partial<Record<StepName, PriorAttempt>>>;
  /** The row of one step before a retry starts (undefined when there is none): how its earlier attempts ended. */
  priorAttempt(job: JobAttempt): Promise<PriorAttempt | undefined>;
  countByStatus(): Promise<Record<string, number>>;
  /** Rows in `processing` whose attempt started more than `olderThanSeconds` ago. */
  findStuck(
    olderThanSeconds: number,
  ): Promise<Array<{ id: number; workflowId: string; emailId: string | null; step: string; activityId: string; startedAt: Date }>>;
  /** Puts a stuck row back into the retry cycle as `failed` (unless it moved on meanwhile). */
  resetStuck(id: number, reason: string, nextAttemptAt: Date | null): Promise<boolean>;
}

/** What a step's row says of its attempts before the next one starts. */
export interface PriorAttempt {
  attempt: number;
  status: QueueStatus;
  /** Attempts already known to have ended with their worker. */
  lost: number;
}
