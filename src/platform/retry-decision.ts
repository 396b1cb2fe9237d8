import { FAILURE_TYPES } from './contract';
import { EmailRagError, TransientError, type ErrorClass } from './errors';

export interface ClassifiedError {
  errorClass: ErrorClass;
  code: string;
  message: string;
  retryAfterMs?: number;
}

/**
 * The one place that decides what kind of failure an error is: transient, permanent, dependency
 * or unclear (docs/queue-model.md).
 */
export function classifyError(err: unknown): ClassifiedError {
  if (err instanceof EmailRagError) {
    return {
      errorClass: err.errorClass,
      code: err.code,
      message: err.message,
      retryAfterMs: err instanceof TransientError ? err.retryAfterMs : undefined,
    };
  }
  const e = err as { name?: string; message?: string; nonRetryable?: boolean; type?: string | null };
  if (e?.name === 'ApplicationFailure' && e.nonRetryable) {
    return { errorClass: 'permanent', code: e.type ?? FAILURE_TYPES.permanent, message: e.message ?? String(err) };
  }
  // Anything we did not foresee: retried on the normal schedule, then a person looks at it.
  return { errorClass: 'unclear', code: e?.type ?? e?.name ?? FAILURE_TYPES.unexpected, message: e?.message ?? String(err) };
}

export interface RetryDecision extends ClassifiedError {
  retry: boolean;
  /** Delay before the next attempt, jitter included; undefined when there is none. */
  delayMs?: number;
}

/**
 * Decides whether and when the next attempt runs: permanent errors never retry; otherwise the
 * profile's delays (30/120/600 s by default) with ±10 % jitter, or the server's Retry-After.
 */
export function decideRetry(
  err: unknown,
  attempt: number,
  plan: { maximumAttempts: number; delaysMs: readonly number[] },
  random: () => number = Math.random,
): RetryDecision {
  const c = classifyError(err);
  const exhausted = plan.maximumAttempts > 0 && attempt >= plan.maximumAttempts;
  if (c.errorClass === 'permanent' || exhausted) return { ...c, retry: false };
  const base = plan.delaysMs[Math.min(attempt - 1, plan.delaysMs.length - 1)] ?? 30_000;
  const jittered = Math.round(base * (0.9 + 0.2 * random()));
  return { ...c, retry: true, delayMs: c.retryAfterMs !== undefined ? Math.max(c.retryAfterMs, 1_000) : jittered };
}
