import { QUEUE_STATUS, type PriorAttempt } from './job-queue';

export type { PriorAttempt };

/**
 * How many attempts before `attempt` ended with their worker and were not known yet. A worker
 * that dies (SIGKILL, out of memory, a rolling deploy) reports nothing: its attempt's row stays
 * `processing`, and Temporal starts the next attempt after the heartbeat timeout. Every attempt
 * writes its row first thing, so attempts between the row's and this one never started writing:
 * they ended with their worker too. A row that ended (`failed`, or `done` of a requeued step)
 * failed of its own: that attempt counts. A live worker never leaves a row `processing`: an
 * attempt that hangs is given up by its own worker before the start-to-close timeout and ends
 * `failed` (src/platform/attempt-deadline.ts), so a hung step uses up its attempts and only a
 * worker that stopped loses one for free.
 */
export function newlyLostAttempts(prior: PriorAttempt | undefined, attempt: number): number {
  if (!prior || attempt <= prior.attempt) return 0;
  const between = attempt - prior.attempt - 1;
  return prior.status === QUEUE_STATUS.processing ? between + 1 : between;
}

/**
 * The attempt number that counts against a step's retry budget: attempts lost with their worker
 * are not the step's failures (a model that never got to answer has not failed).
 */
export function countedAttempt(attempt: number, lost: number): number {
  return Math.max(1, attempt - lost);
}
