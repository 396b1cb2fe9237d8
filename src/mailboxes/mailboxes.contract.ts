/** Audit event types of mailbox polling and IDLE watching (`audit_log.event_type`), for operators' filters. */
export const MAILBOX_AUDIT_EVENTS = {
  /** A mailbox answered again after failing. */
  connected: 'mailbox_connected',
  /** The poll started fewer workflows: the backlog is full. */
  backpressure: 'backpressure',
  watcherStopped: 'watcher_stopped',
  watcherWakeFailed: 'watcher_wake_failed',
  watcherDisconnected: 'watcher_disconnected',
  watcherReconnected: 'watcher_reconnected',
  /** A mailbox was switched between shadow and live (`email-rag mailboxes mode`). */
  modeChanged: 'mailbox_mode_changed',
} as const;
export type MailboxAuditEvent = (typeof MAILBOX_AUDIT_EVENTS)[keyof typeof MAILBOX_AUDIT_EVENTS];

/**
 * How a mailbox runs (`mode` in the registry): `live` drafts for people to approve and sends;
 * `shadow` drafts in the background, asks nobody and never sends — each draft is measured against
 * the reply the team sent itself (docs/answered-elsewhere.md#shadow-mode).
 */
export const MAILBOX_MODES = { live: 'live', shadow: 'shadow' } as const;
export type MailboxMode = (typeof MAILBOX_MODES)[keyof typeof MAILBOX_MODES];

// This feature's audit event types join the one type every audit row is checked against.
declare module '../platform/audit-event-types' {
  interface AuditEventGroups {
    mailboxes: (typeof MAILBOX_AUDIT_EVENTS)[keyof typeof MAILBOX_AUDIT_EVENTS];
  }
}

/**
 * SMTP phases of one attempt, in order. Everything before `data_end` hands nothing over: the
 * server discards a message whose final dot never came. From `data_end` on (the final dot is
 * being written, the reply is awaited) the outcome is unknown until the server answers.
 */
export const SMTP_PHASES = ['connect', 'greeting', 'tls', 'login', 'mail_from', 'rcpt', 'data', 'data_end'] as const;

export type SmtpPhase = (typeof SMTP_PHASES)[number];

/**
 * Where a folder's IDLE watcher stands (`mailbox_watchers.state`, `email-rag status`, the
 * `email_rag_idle_watchers` gauge). `off` is never stored: no row, or IMAP_IDLE=off.
 */
export const WATCHER_STATES = {
  connecting: 'connecting',
  idle: 'idle',
  reconnecting: 'reconnecting',
  stopped: 'stopped',
} as const;

export type WatcherState = (typeof WATCHER_STATES)[keyof typeof WATCHER_STATES];

/** What status and metrics show for a folder: a stored state, `stale` (its heartbeat stopped) or `off`. */
export const WATCHER_VIEW = { ...WATCHER_STATES, stale: 'stale', off: 'off' } as const;

export const WATCHER_VIEWS = Object.values(WATCHER_VIEW);

export type WatcherView = (typeof WATCHER_VIEW)[keyof typeof WATCHER_VIEW];
