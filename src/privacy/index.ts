/**
 * The face of privacy/: what the other features and the processes may use of it, none of
 * which loads a driver or SDK (what does is in index.adapters.ts); everything else in the folder is
 * its own.
 *
 * Privacy: retention and its purge, erasure and export of a person's data, and the audit log's
 * access log.
 */
export { readPrivacyConfig } from './privacy.config';
export { ACCESS_ACTIONS, PRIVACY_EVENTS } from './privacy.contract';
export { createRetentionActivities } from './retention.activities';
export type { RetentionDeps } from './retention.activities';
