/**
 * The audit log's port: the one record every feature writes of its errors, retries, fallbacks and
 * people's decisions (`audit_log`). The stores of a feature's own records are that feature's ports.
 */
import type { AuditEventType } from './audit-event-types';
import type { ErrorClass } from './errors';

export interface AuditEntry {
  emailId: string | null;
  correlationId: string;
  /** One of the declared audit event types (src/platform/audit-event-types.ts): a misspelt one does not compile. */
  eventType: AuditEventType;
  errorClass?: ErrorClass | null;
  message: string;
  actor?: string | null;
  details?: Record<string, unknown>;
  /** Makes a retried write land once. */
  eventKey?: string;
}

/** Append-only record of every error, retry, fallback and human decision. */
export interface AuditLog {
  record(entry: AuditEntry): Promise<void>;
  /** Several rows in one write, in this order (each still lands once per event key). */
  recordAll(entries: AuditEntry[]): Promise<void>;
}
