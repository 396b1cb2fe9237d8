/**
 * Audit event types of importing archive files (`audit_log.event_type`), for operators' filters.
 * A message too large to store is `too_large`, as for mail fetched over IMAP (src/email/email.contract.ts).
 */
export const IMPORT_AUDIT_EVENTS = {
  unparseable: 'import_unparseable',
  truncated: 'import_truncated',
  failed: 'import_failed',
} as const;
export type ImportAuditEvent = (typeof IMPORT_AUDIT_EVENTS)[keyof typeof IMPORT_AUDIT_EVENTS];

// This feature's audit event types join the one type every audit row is checked against.
declare module '../platform/audit-event-types' {
  interface AuditEventGroups {
    archiveImport: (typeof IMPORT_AUDIT_EVENTS)[keyof typeof IMPORT_AUDIT_EVENTS];
  }
}
