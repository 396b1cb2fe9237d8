/**
 * The face of replay/: what the other features and the processes may use of it, none of
 * which loads a driver or SDK (what does is in index.adapters.ts); everything else in the folder is
 * its own.
 *
 * Replaying a team's history before switching on: pairs of customer mail and the team's reply,
 * drafts as of then, measures, the report, and the evidence autonomy may count
 * (`createMariaDbReplayEvidence`).
 */
export { buildReplayReport, buildEvidenceFigures, evidenceOptions } from './replay-report';
export type { EvidenceFigures, EvidenceOptions, ReplayGroup } from './replay-report';
export { formatEvidenceFigures } from './replay-format';
export { measurePair, type PairMeasures } from './replay-measures';
export type { ReplayReportRow } from './replay-store.port';
export type { MeanInterval, ShareInterval } from './replay-statistics';
export { createReplayActivities } from './replay.activities';
export type { ReplayDeps } from './replay.activities';
export { readReplayConfig } from './replay.config';
export { REPLAY_AUDIT_EVENTS, REPLAY_OUTCOME, REPLAY_QUEUE_SUFFIX, REPLAY_RESULT_STATE } from './replay.contract';
export { PAIR_RATINGS, PAIR_SOURCES } from './replay.contract';
export type { PairRating, PairSource, ReplayOutcome } from './replay.contract';
