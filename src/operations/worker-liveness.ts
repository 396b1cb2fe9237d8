/**
 * The worker's liveness and its own part of readiness, from the states of its Temporal Workers
 * (the SDK's `Worker.getState()`: the main queue's worker and one per activity pool).
 */
import { HEALTH_DEPENDENCIES, HEALTH_STATES } from './operations.contract';
import type { ReadinessProbe } from './readiness';

/** The SDK's worker states, as its `State` type names them. */
export type SdkWorkerState = 'INITIALIZED' | 'RUNNING' | 'STOPPED' | 'STOPPING' | 'DRAINING' | 'DRAINED' | 'FAILED';

/** States of a worker that was asked to stop (SIGTERM) and is finishing its in-flight work. */
const STOPPING: readonly SdkWorkerState[] = ['STOPPING', 'DRAINING', 'DRAINED'];

export interface WorkerLiveness {
  live: boolean;
  /** `RUNNING`, `stopping`, or the states that are neither (e.g. `FAILED`). */
  state: string;
}

/**
 * Live while every Temporal Worker runs, and while they finish their work after a stop signal:
 * restarting a draining worker would cut short what the grace time is there to finish. Not live
 * once one has failed or stopped, or before they run.
 */
export function workerLiveness(states: readonly SdkWorkerState[]): WorkerLiveness {
  if (states.length > 0 && states.every((s) => s === 'RUNNING')) return { live: true, state: 'RUNNING' };
  if (states.length > 0 && states.every((s) => s === 'RUNNING' || STOPPING.includes(s)))
    return { live: true, state: HEALTH_STATES.stopping };
  return { live: false, state: [...new Set(states)].join(', ') || 'no worker' };
}

/** Ready only while every Temporal Worker runs; a stopping worker takes no new work. */
export function workerStateProbe(states: () => readonly SdkWorkerState[]): ReadinessProbe {
  return {
    dependency: HEALTH_DEPENDENCIES.worker,
    async run() {
      const now = states();
      if (now.length > 0 && now.every((s) => s === 'RUNNING')) return;
      const live = workerLiveness(now);
      if (live.state === HEALTH_STATES.stopping) return [{ state: HEALTH_STATES.stopping, reason: 'shutting down on a signal' }];
      return [{ state: HEALTH_STATES.failing, reason: `Temporal Workers not running: ${live.state}` }];
    },
  };
}
