import type { CaseEventRecord } from './case-clock.port';
import { query, type Queryable } from '../platform/pool.mariadb';

/**
 * One row of a case's history, written once per `eventKey` (a retried activity writes nothing new).
 * Takes a connection so the row can share the transaction of the change it records.
 */
/** A case event; without a key (null) every call writes a row. */
export type CaseEventRow = Omit<CaseEventRecord, 'eventKey' | 'details'> & { eventKey: string | null; details?: unknown };

export async function insertCaseEvent(db: Queryable, e: CaseEventRow, what = 'recording a case event'): Promise<boolean> {
  const res = await query<{ affectedRows: number }>(
    db,
    what,
    `INSERT IGNORE INTO case_events (case_id, email_id, event_type, actor, message, details, event_key) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [
      e.caseId,
      e.emailId,
      e.eventType,
      e.actor ?? null,
      e.message.slice(0, 60_000),
      e.details === undefined ? null : JSON.stringify(e.details),
      e.eventKey,
    ],
  );
  return res.affectedRows > 0;
}
