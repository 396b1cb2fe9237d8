/**
 * The replay section of the configuration (REPLAY_*): how hard a replay may press on the worker,
 * the embedder and the model while live mail flows (docs/replay.md, "The throttle").
 */
import { envValues, type Env } from '../platform/env-values';

export interface ReplaySettings {
  /** REPLAY_CONCURRENCY (default 1): replay drafts in flight per worker (the replay queue's slots). */
  concurrency: number;
  /** REPLAY_BATCH_SIZE (default 10): pairs the workflow takes per batch. */
  batchSize: number;
  /** REPLAY_PAUSE_MS (default 1000): the workflow's pause between batches (a durable timer). */
  pauseMs: number;
  /** REPLAY_PAIRS_PER_RUN (default 200): pairs per workflow run before it continues as new. */
  pairsPerRun: number;
}

export interface ReplayConfig {
  replay: ReplaySettings;
}

export function readReplayConfig(env: Env, problems: string[]): ReplayConfig {
  const v = envValues(env, problems);
  return {
    replay: {
      concurrency: v.intInRange('REPLAY_CONCURRENCY', 1, 1, 64),
      batchSize: v.intInRange('REPLAY_BATCH_SIZE', 10, 1, 500),
      pauseMs: v.intInRange('REPLAY_PAUSE_MS', 1000, 0, 3_600_000),
      pairsPerRun: v.intInRange('REPLAY_PAIRS_PER_RUN', 200, 1, 10_000),
    },
  };
}

// This feature's section of the whole configuration (src/platform/config.ts).
declare module '../platform/config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged into the whole configuration
  interface Config extends ReplayConfig {}
}
