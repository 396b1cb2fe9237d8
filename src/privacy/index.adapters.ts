/**
 * The part of privacy/'s face that loads a driver or SDK: its adapters, and the commands and assemblies
 * that build them. The processes that wire the features import it, and the few features that assemble
 * another's adapters; everything else takes privacy/index.ts, which loads none.
 */
export { createMariaDbAccessLog } from './access-log.mariadb';
export { auditCommands } from './audit-access.cli';
export { privacyCommands } from './privacy.cli';
export { createMariaDbRetentionStore } from './retention-store.mariadb';
