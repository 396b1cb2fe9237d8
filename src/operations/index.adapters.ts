/**
 * The part of operations/'s face that loads a driver or SDK: its adapters, and the commands and assemblies
 * that build them. The processes that wire the features import it, and the few features that assemble
 * another's adapters; everything else takes operations/index.ts, which loads none.
 */
export { codecServerCommand } from './codec-server.cli';
export { dlqCommands, dlqRequeue } from './dead-letters.cli';
export { createMariaDbDeadLetters } from './dead-letters.mariadb';
export { doctorCommand } from './doctor.cli';
export { dailyOutcomes } from './draft-quality.mariadb';
export { intakeCommands } from './intake.cli';
export { metricsCommand } from './metrics.cli';
export { healthPaths, registerHealthRoutes } from './health-routes.http';
export { startHealthServer, type RunningHealthServer } from './health-server.http';
export { createMariaDbPollAges } from './poll-ages.mariadb';
export { databaseProbe } from './readiness-probes.mariadb';
export { temporalNamespaceProbe, temporalPollSchedules } from './readiness-probes.temporal';
export { createMariaDbOperatingFigures } from './operating-figures.mariadb';
export { backlogByStatusAndPriority, oldestWaiting, readMetrics, sendProblems } from './operations.mariadb';
export { qualityCommand, readGaps, readQuality } from './quality.cli';
export { cleanupCommand, pollCommand, scheduleCommands } from './schedules.cli';
export { draftsCommand, statusCommand } from './status.cli';
export { createTemporalInspector } from './workflow-inspector.temporal';
