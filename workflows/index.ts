export * from './email-workflow';
export * from './imap-poll-workflow';
