/** Audit event types of operations (`audit_log.event_type`), for operators' filters. */
export const OPERATIONS_AUDIT_EVENTS = {
  /** The cleanup reset a job that was stuck. */
  stuckReset: 'stuck_reset',
  /** A dead letter was started again (`email-rag dlq requeue`). */
  dlqRequeued: 'dlq_requeued',
} as const;
export type OperationsAuditEvent = (typeof OPERATIONS_AUDIT_EVENTS)[keyof typeof OPERATIONS_AUDIT_EVENTS];

/**
 * The parts `email-rag doctor` checks (the JSON's `check`); a mailbox part also names its mailbox
 * (`target`). In the order the table prints them.
 */
export const DOCTOR_CHECKS = {
  database: 'database',
  migrations: 'migrations',
  temporalNamespace: 'temporal namespace',
  searchAttributes: 'search attributes',
  schedules: 'schedules',
  mailbox: 'mailbox',
  embedder: 'embedder',
  llm: 'llm',
  knowledge: 'knowledge folder',
  payloadEncryption: 'payload encryption',
  codecServer: 'codec server',
  inboxSignIn: 'inbox sign-in',
} as const;
export type DoctorCheckName = (typeof DOCTOR_CHECKS)[keyof typeof DOCTOR_CHECKS];

// This feature's audit event types join the one type every audit row is checked against.
declare module '../platform/audit-event-types' {
  interface AuditEventGroups {
    operations: (typeof OPERATIONS_AUDIT_EVENTS)[keyof typeof OPERATIONS_AUDIT_EVENTS];
  }
}
