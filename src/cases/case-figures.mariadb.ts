import type { Priority } from '../triage';
import { CASE_DEADLINE_EVENTS } from './cases.contract';
import type { CaseFigures } from './case-figures.port';
import { query, type Queryable } from '../platform/pool.mariadb';

export function createMariaDbCaseFigures(pool: Queryable): CaseFigures {
  return {
    async overdue() {
      // ix_cases_status_due: open cases by due time.
      const rows = await query<Array<{ mailbox_id: string; priority: Priority; n: number }>>(
        pool,
        'counting overdue cases',
        `SELECT mailbox_id, priority, COUNT(*) AS n FROM cases
          WHERE status = 'open' AND waiting_since IS NOT NULL AND due_at < CURRENT_TIMESTAMP(3)
          GROUP BY mailbox_id, priority`,
      );
      return rows.map((r) => ({ mailboxId: r.mailbox_id, priority: r.priority, count: Number(r.n) }));
    },
    async breaches() {
      const rows = await query<Array<{ mailbox_id: string; n: number }>>(
        pool,
        'counting missed case deadlines',
        `SELECT c.mailbox_id, COUNT(*) AS n FROM case_events e JOIN cases c ON c.id = e.case_id
          WHERE e.event_type = ? GROUP BY c.mailbox_id`,
        [CASE_DEADLINE_EVENTS.breached],
      );
      return rows.map((r) => ({ mailboxId: r.mailbox_id, count: Number(r.n) }));
    },
  };
}
