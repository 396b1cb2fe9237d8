/**
 * The face of review-inbox/: what the other features and the processes may use of it, none of
 * which loads a driver or SDK (what does is in index.adapters.ts); everything else in the folder is
 * its own.
 *
 * The review inbox (web): what the command line needs of it (the inbox users command, its
 * configuration section and contract names) and its refused sign-ins for the worker's metrics.
 */
export { readReviewInboxConfig } from './review-inbox.config';
export { LOGIN_REFUSAL_REASONS, REVIEW_INBOX_AUDIT_EVENTS } from './review-inbox.contract';
