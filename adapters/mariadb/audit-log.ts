import type { AuditEntry, AuditLog } from '../../ports/store';
import { query, type Pool } from './pool';

export function createMariaDbAuditLog(pool: Pool): AuditLog {
  return {
    async record(e: AuditEntry): Promise<void> {
      // INSERT IGNORE on event_key: a retried activity or a replayed write lands once.
      await query(
        pool,
        'writing the audit log',
        `INSERT IGNORE INTO audit_log (email_id, correlation_id, event_type, error_class, message, actor, details, event_key)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          e.emailId,
          e.correlationId,
          e.eventType,
          e.errorClass ?? null,
          e.message.slice(0, 60_000),
          e.actor ?? null,
          e.details ? JSON.stringify(e.details) : null,
          e.eventKey ?? null,
        ],
      );
    },
  };
}
