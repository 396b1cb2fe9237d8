export * from './email-workflow';
export * from './imap-poll-workflow';
export * from './cleanup-workflow';
// Annotates the workflow functions above (AUTO_UPGRADE for the poll); exports nothing.
import './versioning-behaviour';
