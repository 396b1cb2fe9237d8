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
