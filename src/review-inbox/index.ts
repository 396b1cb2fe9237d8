/**
 * The face of review-inbox/: what the other features and the processes may use of it; everything
 * else in the folder is its own.
 *
 * The review inbox (web): what the command line needs of it (the inbox users command, its
 * configuration section and contract names) and its refused sign-ins for the worker's metrics.
 */
export { inboxCommands } from './inbox-users.cli';
export { createMariaDbSignInRefusals } from './login-refusals.mariadb';
export { readReviewInboxConfig } from './review-inbox.config';
export { LOGIN_REFUSAL_REASONS, REVIEW_INBOX_AUDIT_EVENTS } from './review-inbox.contract';
