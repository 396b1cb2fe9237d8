/** Audit event types of attachments (docs/attachments.md), for operators' filters. */
export const ATTACHMENT_EVENTS = {
  /** A file whose text could not be read: encrypted, damaged, a bomb, past a limit, timed out. */
  unreadable: 'attachment_unreadable',
  /** Read, but only up to a limit (pages, characters): the note says what was left out. */
  partlyRead: 'attachment_partly_read',
  /** Not stored: the attachments of the mail passed MAX_MESSAGE_BYTES. */
  notStored: 'attachment_not_stored',
} as const;
export type AttachmentEvent = (typeof ATTACHMENT_EVENTS)[keyof typeof ATTACHMENT_EVENTS];

// This feature's audit event types join the one type every audit row is checked against.
declare module '../platform/audit-event-types' {
  interface AuditEventGroups {
    attachments: (typeof ATTACHMENT_EVENTS)[keyof typeof ATTACHMENT_EVENTS];
  }
}
