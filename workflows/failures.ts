/** Reading activity failures inside workflows: the message, the type and the error class. */
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';

export function failureText(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause) {
    const type = err.cause instanceof ApplicationFailure && err.cause.type ? `${err.cause.type}: ` : '';
    return `${type}${err.cause.message}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** What the queue interceptor attached to an activity's final failure (error class, failed step). */
function interceptorDetail(err: unknown): { errorClass?: string; step?: string } | undefined {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof ApplicationFailure)) return undefined;
  return err.cause.details?.[0] as { errorClass?: string; step?: string } | undefined;
}

/** The error class the queue interceptor attached to an activity's final failure. */
export function errorClassOf(err: unknown): string | undefined {
  return interceptorDetail(err)?.errorClass;
}

export function failureTypeOf(err: unknown): string | undefined {
  return err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? (err.cause.type ?? undefined) : undefined;
}

/** The queue step whose failure ended an activity (a combined activity names the step that failed). */
export function failedStepOf(err: unknown): string | undefined {
  return interceptorDetail(err)?.step;
}
