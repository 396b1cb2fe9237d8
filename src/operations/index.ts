/**
 * The face of operations/: what the other features and the processes may use of it, none of
 * which loads a driver or SDK (what does is in index.adapters.ts); everything else in the folder is
 * its own.
 *
 * Operating the product: status, dead letters, quality and knowledge gaps, the codec server,
 * schedules, the doctor, the operating figures for metrics, and the cleanup workflow's activities.
 */
export { createCleanupActivities } from './cleanup.activities';
export { QUALITY_GROUPINGS, openingLines } from './draft-quality';
export type { GapCandidate, QualityGrouping } from './draft-quality';
export { groupGaps } from './gap-clusters';
export type { GapCluster } from './gap-clusters';
export { URGENT_PRIORITIES } from './operating-figures.port';
export type { OperatingFigures, SignInRefusals } from './operating-figures.port';
export { readOperationsConfig } from './operations.config';
export {
  OPERATIONS_AUDIT_EVENTS,
  HEALTH_DEPENDENCIES,
  HEALTH_PATHS,
  HEALTH_STATES,
  LEGACY_LIVE_PATHS,
  READINESS_TIMEOUT_MS,
  READY_STATES,
  WORKER_HEALTH_PORT,
} from './operations.contract';
export type { HealthDependency, HealthState } from './operations.contract';
export { checkReadiness } from './readiness';
export type { HealthCheck, ReadinessProbe, ReadinessReport } from './readiness';
export { judgePollAge, mailboxPollProbe, pollBoundSeconds } from './mailbox-readiness';
export type { PollAge, WatchedMailbox } from './mailbox-readiness';
export { workerLiveness, workerStateProbe } from './worker-liveness';
export type { SdkWorkerState, WorkerLiveness } from './worker-liveness';
export type { WorkflowInspector } from './workflow-inspector.port';
