/**
 * The face of mailboxes/: what the other features and the processes may use of it, none of
 * which loads a driver or SDK (what does is in index.adapters.ts); everything else in the folder is
 * its own.
 *
 * Mailboxes: the registry of configured accounts, their IMAP and SMTP connections (OAuth2
 * included), folder watching over IMAP IDLE, watermarks, poll health and the mailbox commands.
 */
export type { AccessTokenProvider } from './access-tokens.port';
export type { OwnReplies } from './folder-watch.port';
export type { FolderMark, FoundMessage, ImapConnection, MailboxListing } from './imap-connection.port';
export { HandOverInDoubtError, smtpPhaseOf } from './mail-sender.port';
export type { OutgoingMail } from './mail-sender.port';
export { chooseMailbox } from './mailbox-choice';
export type { MailboxDirectory, ServedMailbox } from './mailbox-directory.port';
export type { MailboxHealth, PollHealth } from './mailbox-health.port';
export { describeOAuth } from './mailbox-oauth';
export { emailKey, mailboxOf, ourAddresses } from './mailbox-of';
export type { ProbeStep } from './mailbox-probe.imap';
export { DEFAULT_MAILBOX_ID, describeSecret, resolveSecret } from './mailbox-registry';
export type { MailboxEntry, SentFolderLookup } from './mailbox-registry';
export { isolationKey, ownMailboxAddresses } from './mailbox-scope';
export type { IsolationKey } from './mailbox-scope';
export { readMailboxesConfig, registryDefaults } from './mailboxes.config';
export { MAILBOX_AUDIT_EVENTS, MAILBOX_MODES, WATCHER_VIEWS } from './mailboxes.contract';
export type { MailboxMode, SmtpPhase } from './mailboxes.contract';
export { openIdClient } from './oauth-client';
export { createOAuthTokenProvider } from './oauth-token-provider';
export type { TriggeredRun } from './poll-trigger.temporal';
export { POLL_SCHEDULE_PREFIX, pollScheduleId } from './schedule-ids';
export { createWatchActivities } from './watch.activities';
export type { IdleDeps } from './watch.activities';
export type { WatcherRow } from './watcher-health.port';
export { watcherLine, watcherStatus } from './watcher-view';
export type { WatcherStatus } from './watcher-view';
export type { Watermark, WatermarkStore } from './watermark-store.port';
