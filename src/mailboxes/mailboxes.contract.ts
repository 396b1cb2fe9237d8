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
} as const;
export type MailboxAuditEvent = (typeof MAILBOX_AUDIT_EVENTS)[keyof typeof MAILBOX_AUDIT_EVENTS];

// This feature's audit event types join the one type every audit row is checked against.
declare module '../platform/audit-event-types' {
  interface AuditEventGroups {
    mailboxes: (typeof MAILBOX_AUDIT_EVENTS)[keyof typeof MAILBOX_AUDIT_EVENTS];
  }
}
