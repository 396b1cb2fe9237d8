/**
 * The face of privacy/: what the other features and the processes may use of it; everything
 * else in the folder is its own.
 *
 * Privacy: retention and its purge, erasure and export of a person's data, and the audit log's
 * access log.
 */
export { createMariaDbAccessLog } from './access-log.mariadb';
export { auditCommands } from './audit-access.cli';
export { privacyCommands } from './privacy.cli';
export { readPrivacyConfig } from './privacy.config';
export { ACCESS_ACTIONS, PRIVACY_EVENTS } from './privacy.contract';
export { createMariaDbRetentionStore } from './retention-store.mariadb';
export { createRetentionActivities } from './retention.activities';
export type { RetentionActivities, RetentionDeps } from './retention.activities';
