/** Reading activity failures inside workflows: the message, the type and the error class. */
import { TimeoutType } from '@temporalio/common';
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';

/**
 * The failure an activity raised. An activity task's failure arrives wrapped in an
 * ActivityFailure; a local activity that exhausted its attempts after backing off on a timer
 * arrives as the ApplicationFailure itself.
 */
function raised(err: unknown): ApplicationFailure | undefined {
  if (err instanceof ActivityFailure) return err.cause instanceof ApplicationFailure ? err.cause : undefined;
  return err instanceof ApplicationFailure ? err : undefined;
}

export function failureText(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause && !(err.cause instanceof ApplicationFailure)) return err.cause.message;
  const failure = raised(err);
  if (failure) return `${failure.type ? `${failure.type}: ` : ''}${failure.message}`;
  return err instanceof Error ? err.message : String(err);
}

/** What the queue interceptor attached to an activity's final failure (error class, failed step). */
function interceptorDetail(err: unknown): { errorClass?: string; step?: string } | undefined {
  return raised(err)?.details?.[0] as { errorClass?: string; step?: string } | undefined;
}

/** The error class the queue interceptor attached to an activity's final failure. */
export function errorClassOf(err: unknown): string | undefined {
  return interceptorDetail(err)?.errorClass;
}

/**
 * The failure's type: the `code` of the error the activity raised (FAILURE_TYPES in src/platform/contract.ts).
 * Decide on it, never on the message text (e.g. `isLlmFailure(failureTypeOf(err))`).
 */
export function failureTypeOf(err: unknown): string | undefined {
  return raised(err)?.type ?? undefined;
}

/** The queue step whose failure ended an activity (a combined activity names the step that failed). */
export function failedStepOf(err: unknown): string | undefined {
  return interceptorDetail(err)?.step;
}

/**
 * An activity whose last attempt ended with its worker: no heartbeat within the heartbeat
 * timeout, or no result within start-to-close. Only Temporal raises these; an attempt that failed
 * of its own arrives as an ApplicationFailure from the queue interceptor.
 */
export function lostWithWorker(err: unknown): boolean {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof TimeoutFailure)) return false;
  return err.cause.timeoutType === TimeoutType.HEARTBEAT || err.cause.timeoutType === TimeoutType.START_TO_CLOSE;
}
