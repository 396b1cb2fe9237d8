/** Audit event types of the privacy commands and the retention purge (never with an address in clear). */
export const PRIVACY_EVENTS = {
  exported: 'privacy_exported',
  erased: 'privacy_erased',
  eraseRefused: 'privacy_erase_refused',
  purged: 'retention_purged',
} as const;
export type PrivacyEvent = (typeof PRIVACY_EVENTS)[keyof typeof PRIVACY_EVENTS];

// This feature's audit event types join the one type every audit row is checked against.
declare module '../platform/audit-event-types' {
  interface AuditEventGroups {
    privacy: (typeof PRIVACY_EVENTS)[keyof typeof PRIVACY_EVENTS];
  }
}

/** What the access log records; `email-rag audit access` shows and filters on these. */
export const ACCESS_ACTIONS = {
  emailViewed: 'email_viewed',
  sourceViewed: 'source_viewed',
  /** The case page: one row per mail it lists (their subjects, summary and history are on it). */
  caseViewed: 'case_viewed',
  /** An attachment downloaded from the review page (detail: the part and the file name). */
  attachmentDownloaded: 'attachment_downloaded',
  exported: 'privacy_export',
  erased: 'privacy_erase',
} as const;

export type AccessAction = (typeof ACCESS_ACTIONS)[keyof typeof ACCESS_ACTIONS];
