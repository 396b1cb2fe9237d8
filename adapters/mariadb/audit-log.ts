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

    async forEmail(emailId: string) {
      const rows = await query<
        Array<{
          email_id: string | null;
          correlation_id: string;
          event_type: string;
          error_class: AuditEntry['errorClass'];
          message: string;
          actor: string | null;
          details: string | null;
          event_key: string | null;
          created_at: Date;
        }>
      >(pool, 'reading the audit log', 'SELECT * FROM audit_log WHERE email_id = ? ORDER BY id', [emailId]);
      return rows.map((r) => ({
        emailId: r.email_id,
        correlationId: r.correlation_id,
        eventType: r.event_type,
        errorClass: r.error_class,
        message: r.message,
        actor: r.actor,
        details: r.details ? (JSON.parse(r.details) as Record<string, unknown>) : undefined,
        eventKey: r.event_key ?? undefined,
        createdAt: r.created_at,
      }));
    },
  };
}
