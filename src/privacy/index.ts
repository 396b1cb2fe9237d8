/**
 * TODO face header
 */
export { createMariaDbAccessLog } from './access-log.mariadb';
export { auditCommands } from './audit-access.cli';
export { privacyCommands } from './privacy.cli';
export { readPrivacyConfig } from './privacy.config';
export { ACCESS_ACTIONS, PRIVACY_EVENTS } from './privacy.contract';
export { createMariaDbRetentionStore } from './retention-store.mariadb';
export { createRetentionActivities } from './retention.activities';
export type { RetentionActivities, RetentionDeps } from './retention.activities';
