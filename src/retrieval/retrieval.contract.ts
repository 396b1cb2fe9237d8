/** Audit event types of retrieval (`audit_log.event_type`), for operators' filters. */
export const RETRIEVAL_AUDIT_EVENTS = {
  /** Retrieval went on without one of its indexes. */
  degraded: 'retrieval_degraded',
  /** The knowledge folder's index passed RETRIEVAL_KNOWLEDGE_WARN_PASSAGES (it still searches every passage). */
  knowledgeLarge: 'retrieval_knowledge_large',
} as const;
export type RetrievalAuditEvent = (typeof RETRIEVAL_AUDIT_EVENTS)[keyof typeof RETRIEVAL_AUDIT_EVENTS];

// This feature's audit event types join the one type every audit row is checked against.
declare module '../platform/audit-event-types' {
  interface AuditEventGroups {
    retrieval: (typeof RETRIEVAL_AUDIT_EVENTS)[keyof typeof RETRIEVAL_AUDIT_EVENTS];
  }
}
