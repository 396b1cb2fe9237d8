/**
 * The face of operations/: what the other features and the processes may use of it; everything
 * else in the folder is its own.
 *
 * Operating the product: status, dead letters, quality and knowledge gaps, the codec server,
 * schedules, the doctor, the operating figures for metrics, and the cleanup workflow's activities.
 */
export { createCleanupActivities } from './cleanup.activities';
export { codecServerCommand } from './codec-server.cli';
export { dlqCommands, dlqRequeue } from './dead-letters.cli';
export { createMariaDbDeadLetters } from './dead-letters.mariadb';
export { doctorCommand } from './doctor.cli';
export { dailyOutcomes } from './draft-quality.mariadb';
export { QUALITY_GROUPINGS, openingLines } from './draft-quality';
export type { GapCandidate, QualityGrouping } from './draft-quality';
export { groupGaps } from './gap-clusters';
export type { GapCluster } from './gap-clusters';
export { intakeCommands } from './intake.cli';
export { metricsCommand } from './metrics.cli';
export { createMariaDbOperatingFigures } from './operating-figures.mariadb';
export { URGENT_PRIORITIES } from './operating-figures.port';
export type { OperatingFigures, SignInRefusals } from './operating-figures.port';
export { readOperationsConfig } from './operations.config';
export { OPERATIONS_AUDIT_EVENTS } from './operations.contract';
export { backlogByStatusAndPriority, oldestWaiting, readMetrics, sendProblems } from './operations.mariadb';
export { qualityCommand, readGaps, readQuality } from './quality.cli';
export { cleanupCommand, pollCommand, scheduleCommands } from './schedules.cli';
export { draftsCommand, statusCommand } from './status.cli';
export type { WorkflowInspector } from './workflow-inspector.port';
export { createTemporalInspector } from './workflow-inspector.temporal';
