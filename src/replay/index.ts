/**
 * TODO face header
 */
export { createMariaDbReplayEvidence } from './replay-evidence.mariadb';
export { buildReplayReport } from './replay-report';
export type { ReplayGroup } from './replay-report';
export type { MeanInterval, ShareInterval } from './replay-statistics';
export { createMariaDbReplayStore } from './replay-store.mariadb';
export { createReplayActivities } from './replay.activities';
export type { ReplayDeps } from './replay.activities';
export { replayCommands } from './replay.cli';
export { readReplayConfig } from './replay.config';
export { REPLAY_AUDIT_EVENTS, REPLAY_OUTCOME, REPLAY_QUEUE_SUFFIX } from './replay.contract';
