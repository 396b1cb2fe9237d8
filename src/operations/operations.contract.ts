/** Audit event types of operations (`audit_log.event_type`), for operators' filters. */
export const OPERATIONS_AUDIT_EVENTS = {
  /** The cleanup reset a job that was stuck. */
  stuckReset: 'stuck_reset',
  /** A dead letter was started again (`email-rag dlq requeue`). */
  dlqRequeued: 'dlq_requeued',
} as const;
export type OperationsAuditEvent = (typeof OPERATIONS_AUDIT_EVENTS)[keyof typeof OPERATIONS_AUDIT_EVENTS];
