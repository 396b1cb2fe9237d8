import { AsyncLocalStorage } from 'node:async_hooks';
import { ApplicationFailure } from '@temporalio/common';

/**
 * Runs one queue step inside an activity that does several (e.g. `ingestEmail`: fetch, parse,
 * index). The worker's queue interceptor provides it, so every step keeps its own queue row,
 * attempt count and retry plan although Temporal sees a single activity.
 */
export interface StepTracker {
  /** `activity` names the step's own entry in the activity plan (activities/activity-plan.ts) (e.g. `parseEmail`). */
  run<T>(activity: string, fn: () => Promise<T>): Promise<T>;
}

export const stepScope = new AsyncLocalStorage<StepTracker>();

/** One step of a combined activity; outside a worker (no interceptor) it simply runs. */
export function runStep<T>(activity: string, fn: () => Promise<T>): Promise<T> {
  const tracker = stepScope.getStore();
  return tracker ? tracker.run(activity, fn) : fn();
}

/**
 * True when the step's failure will be retried (the activity is attempted again). A step that
 * gave up — or ran without the interceptor, so nothing schedules a retry — answers false.
 */
export function stepWillRetry(err: unknown): boolean {
  return err instanceof ApplicationFailure && !err.nonRetryable;
}
