/** Routing and hand assignment of cases (table cases, history in case_events). */
import { CASE_ROUTING_EVENTS } from './cases.contract';
import { PermanentError } from '../platform/errors';
import { ROUTED_BY, routedByPerson } from './routing-rules';
import type { CaseAssignment, CaseRouting, CaseRoutingFacts } from './case-routing.port';
import { query, type Pool, type Queryable } from '../platform/pool.mariadb';
import { insertCaseEvent } from './case-events.mariadb';
import { inTransaction } from '../platform/transaction.mariadb';

/** Longest team or owner name the table holds. */
const NAME_MAX = 191;

interface CaseRow {
  id: string;
  mailbox_id: string;
  correspondent: string;
  priority: string;
  team: string | null;
  owner: string | null;
  routed_by: string | null;
}

const assignmentOf = (r: Pick<CaseRow, 'team' | 'owner' | 'routed_by'>): CaseAssignment => ({
  team: r.team,
  owner: r.owner,
  routedBy: r.routed_by,
});

async function lockCase(conn: Queryable, caseId: string): Promise<CaseRow | null> {
  const rows = await query<CaseRow[]>(
    conn,
    'reading a case for routing',
    'SELECT id, mailbox_id, correspondent, priority, team, owner, routed_by FROM cases WHERE id = ? FOR UPDATE',
    [caseId],
  );
  return rows[0] ?? null;
}

/**
 * Writes an assignment and its `case_assigned` event. The event key counts the case's assignments
 * (read under the row lock), so a retried call that finds its change made adds nothing.
 */
async function writeAssignment(conn: Queryable, row: CaseRow, next: CaseAssignment, actor: string, rule: string | null): Promise<void> {
  await query(conn, 'assigning a case', 'UPDATE cases SET team = ?, owner = ?, routed_by = ? WHERE id = ?', [
    next.team,
    next.owner,
    next.routedBy,
    row.id,
  ]);
  const [count] = await query<Array<{ n: number }>>(
    conn,
    'counting assignments of a case',
    'SELECT COUNT(*) AS n FROM case_events WHERE case_id = ? AND event_type = ?',
    [row.id, CASE_ROUTING_EVENTS.assigned],
  );
  const who = [next.owner, next.team].filter(Boolean).join(' / ') || 'nobody';
  await insertCaseEvent(
    conn,
    {
      caseId: row.id,
      emailId: null,
      eventType: CASE_ROUTING_EVENTS.assigned,
      actor,
      message: rule ? `assigned to ${who} by rule ${rule}` : `assigned to ${who} by ${actor}`,
      details: { team: next.team, owner: next.owner, rule, before: { team: row.team, owner: row.owner, routedBy: row.routed_by } },
      eventKey: `${CASE_ROUTING_EVENTS.assigned}:${row.id}:${Number(count?.n ?? 0) + 1}`,
    },
    'recording an assignment of a case',
  );
}

function checkName(value: string | null | undefined, what: string): void {
  if (value === undefined || value === null) return;
  if (value.length === 0 || value.length > NAME_MAX || /[\p{Cc}\p{Cf}]/u.test(value))
    throw new PermanentError(`${what} must be 1-${NAME_MAX} characters without control characters`);
}

export function createMariaDbCaseRouting(pool: Pool): CaseRouting {
  return {
    async facts(caseId: string): Promise<CaseRoutingFacts | null> {
      const rows = await query<CaseRow[]>(
        pool,
        'reading a case for routing',
        'SELECT id, mailbox_id, correspondent, priority, team, owner, routed_by FROM cases WHERE id = ?',
        [caseId],
      );
      const r = rows[0];
      return r ? { id: r.id, mailboxId: r.mailbox_id, correspondent: r.correspondent, priority: r.priority, ...assignmentOf(r) } : null;
    },

    applyRule(caseId, rule) {
      return inTransaction(pool, 'routing a case', async (conn) => {
        const row = await lockCase(conn, caseId);
        if (!row) throw new PermanentError(`there is no case ${caseId} to route`);
        const current = assignmentOf(row);
        // A person's assignment stands: the rules never overwrite it.
        if (routedByPerson(row.routed_by)) return { applied: false, current };
        const next = { team: rule.team, owner: rule.owner, routedBy: ROUTED_BY.rule(rule.name) };
        if (next.team === row.team && next.owner === row.owner && next.routedBy === row.routed_by) return { applied: false, current };
        await writeAssignment(conn, row, next, 'routing', rule.name);
        return { applied: true, current: next };
      });
    },

    async assignCase(caseId, change, by) {
      checkName(change.owner, 'the owner');
      checkName(change.team, 'the team');
      checkName(by, 'who assigns');
      if (change.owner) {
        const users = await query<unknown[]>(
          pool,
          'checking an inbox user',
          'SELECT 1 FROM inbox_users WHERE name = ? AND disabled_at IS NULL',
          [change.owner],
        );
        if (users.length === 0) throw new PermanentError(`there is no enabled inbox user named "${change.owner}"`);
      }
      return inTransaction(pool, 'assigning a case', async (conn) => {
        const row = await lockCase(conn, caseId);
        if (!row) throw new PermanentError(`there is no case ${caseId} to assign`);
        const next: CaseAssignment = {
          team: change.team === undefined ? row.team : change.team,
          owner: change.owner === undefined ? row.owner : change.owner,
          routedBy: ROUTED_BY.person(by),
        };
        if (next.team !== row.team || next.owner !== row.owner || next.routedBy !== row.routed_by)
          await writeAssignment(conn, row, next, by, null);
        return next;
      });
    },
  };
}
