/**
 * TODO face header
 */
export { inboxCommands } from './inbox-users.cli';
export { createMariaDbSignInRefusals } from './login-refusals.mariadb';
export { readReviewInboxConfig } from './review-inbox.config';
export { LOGIN_REFUSAL_REASONS, REVIEW_INBOX_AUDIT_EVENTS } from './review-inbox.contract';
