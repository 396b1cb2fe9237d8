import type { AuditEntry, AuditLog } from './store.port';
import { query, type Pool } from './pool.mariadb';

const row = (e: AuditEntry) => [
  e.emailId,
  e.correlationId,
  e.eventType,
  e.errorClass ?? null,
  e.message.slice(0, 60_000),
  e.actor ?? null,
  e.details ? JSON.stringify(e.details) : null,
  e.eventKey ?? null,
];

export function createMariaDbAuditLog(pool: Pool): AuditLog {
  const insert = async (entries: AuditEntry[]): Promise<void> => {
    if (entries.length === 0) return;
    // INSERT IGNORE on event_key: a retried activity or a replayed write lands once.
    await query(
      pool,
      'writing the audit log',
      `INSERT IGNORE INTO audit_log (email_id, correlation_id, event_type, error_class, message, actor, details, event_key)
       VALUES ${entries.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      entries.flatMap(row),
    );
  };
  return {
    record: (e) => insert([e]),
    recordAll: insert,
  };
}
