export * from './email-workflow';
export * from './imap-poll-workflow';
export * from './cleanup-workflow';
export * from './mailbox-watch-workflow';
export * from './case-workflow';
