/**
 * A live worker ends its own attempts before Temporal's start-to-close timeout does, so that a
 * step that hangs (a call that never returns while the heartbeat timer keeps running) is a failure
 * of the step, counted against its budget, and never an attempt "lost with its worker".
 *
 * Why the worker decides, and not the next attempt by timing or by Temporal's timeout type: the
 * one thing only a live worker can do is report. A worker that gives up its hung attempt writes
 * the attempt's queue row `failed` and hands Temporal an ordinary retryable failure (the profile's
 * delays, then `dead`); a worker that died writes nothing, its row stays `processing`, and the
 * next attempt counts it as lost (src/platform/lost-attempts.ts). Guessing from timestamps would
 * mix the clocks of worker, database and server, and a retry that waited in a busy queue would
 * look like a hung one; Temporal's timeout type is not given to the next attempt, and a worker
 * dying in the last heartbeat interval times out as start-to-close too.
 *
 * An event loop blocked so hard that no timer runs cannot heartbeat either: Temporal ends it by
 * the heartbeat timeout and it counts as lost, bounded by LOST_ATTEMPTS_ALLOWED.
 */
import { FAILURE_TYPES } from './contract';
import { TransientError } from './errors';
import { HEARTBEAT_EVERY_MS } from './activity-profiles.workflow';

/**
 * How long before the start-to-close timeout the worker gives the attempt up: one heartbeat
 * interval (a fifth of shorter timeouts), time enough for the failure to reach Temporal before
 * its own timeout would.
 */
export function giveUpAfterMs(startToCloseMs: number): number {
  return startToCloseMs - Math.min(HEARTBEAT_EVERY_MS, Math.round(startToCloseMs / 5));
}

export interface AttemptDeadline {
  /** `work`'s result, or a StepTimedOut failure once the deadline has passed (`work` is then abandoned). */
  race<T>(work: Promise<T>): Promise<T>;
  clear(): void;
}

/** The deadline of one attempt, counted from now (the attempt's start on its worker). */
export function attemptDeadline(startToCloseMs: number): AttemptDeadline {
  const afterMs = giveUpAfterMs(startToCloseMs);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(
        new TransientError(
          `still running ${Math.round(afterMs / 1000)} s after the attempt started (its start-to-close timeout is ${Math.round(startToCloseMs / 1000)} s): given up by its worker, which is alive, and counted against the step's attempts`,
          FAILURE_TYPES.stepTimedOut,
        ),
      );
    }, afterMs);
  });
  // Only the races observe it; an attempt that finished in time never does.
  expired.catch(() => undefined);
  return {
    race: (work) => Promise.race([work, expired]),
    clear: () => clearTimeout(timer),
  };
}
