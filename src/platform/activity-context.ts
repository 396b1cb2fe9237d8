import { Context } from '@temporalio/activity';

/** The correlation id of everything an activity writes: its workflow id. */
export function correlationId(): string {
  const info = Context.current().info;
  return info.workflowExecution?.workflowId ?? `activity-${info.activityId}`;
}

/**
 * The running activity's start-to-close timeout; undefined outside an activity (a test that calls
 * the function itself) or when none was set.
 */
export function activityTimeoutMs(): number | undefined {
  try {
    const ms = Context.current().info.startToCloseTimeoutMs;
    return ms > 0 ? ms : undefined;
  } catch {
    return undefined;
  }
}

/** The running activity's attempt (1 for the first); 1 outside an activity (a test that calls the function itself). */
export function activityAttempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1;
  }
}
