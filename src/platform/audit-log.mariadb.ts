import type { AuditEntry, AuditLog } from './store.port';
import { query, type Queryable } from './pool.mariadb';

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

/** `pool` may be a transaction's connection: the rows are then written with the rest of it, or not at all. */
export function createMariaDbAuditLog(pool: Queryable): AuditLog {
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
