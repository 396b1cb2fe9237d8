export * from '../src/email/email.workflow';
export * from '../src/email/intake/imap-poll.workflow';
export * from '../src/operations/cleanup.workflow';
export * from '../src/mailboxes/mailbox-watch.workflow';
export * from '../src/cases/case.workflow';
export * from '../src/cases/case-clock.workflow';
export * from '../src/replay/replay.workflow';
