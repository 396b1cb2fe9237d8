/**
 * The part of mailboxes/'s face that loads a driver or SDK: its adapters, and the commands and assemblies
 * that build them. The processes that wire the features import it, and the few features that assemble
 * another's adapters; everything else takes mailboxes/index.ts, which loads none.
 */
export { createImapFolderWatch } from './folder-watch.imap';
export { countEmailsByMailbox } from './mailbox-counts.mariadb';
export { createMailboxDirectory } from './mailbox-directory';
export { createMariaDbMailboxHealth } from './mailbox-health.mariadb';
export { mailboxesCheck, mailboxesCommands, pollHealthLine } from './mailboxes.cli';
export { createTemporalPollTrigger, triggerSchedule } from './poll-trigger.temporal';
export { createMariaDbWatcherHealth } from './watcher-health.mariadb';
export { installWatchers } from './watchers';
export { createMariaDbWatermarkStore } from './watermark-store.mariadb';
