/**
 * The case clock's activities (src/cases/case-clock.workflow.ts): what is due now across all
 * cases, and when the next thing falls due. The acting itself (plan, remind, escalate, close) is
 * the deadline and case activities', each checking the row before it writes.
 */
import { FAILURE_TYPES } from '../platform/contract';
import { PermanentError } from '../platform/errors';
import type { CasesDeps } from './cases-deps';
import type { CaseClockDueItem } from './case-clock-definitions.workflow';
import { DEFAULT_CASE_WINDOW_DAYS } from './case.activities';

export type CaseClockDeps = Pick<CasesDeps, 'caseDeadlines'> & { case?: { windowDays: number } };

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function createCaseClockActivities(deps: CaseClockDeps) {
  return {
    /**
     * Up to `limit` of each kind due now, and when the clock should wake next: now when something
     * was due (it acts, then asks again), else the earliest planned time. The clock records that
     * time, so a step that plans a case due earlier knows to wake it.
     */
    async caseClockDue(input: { limit: number }): Promise<{ due: CaseClockDueItem[]; nextAt: string | null }> {
      const ports = deps.caseDeadlines;
      if (!ports) throw new PermanentError('case deadlines are not set up in this worker (caseDeadlines missing)', FAILURE_TYPES.config);
      const windowDays = deps.case?.windowDays ?? DEFAULT_CASE_WINDOW_DAYS;
      const now = (ports.now ?? (() => new Date()))();
      const due = await ports.clock.due(now, windowDays, input.limit);
      const next = due.length > 0 ? now : await ports.clock.nextDue(now, windowDays);
      await ports.clock.setNextWake(next);
      return { due: due.map((d) => ({ caseId: d.caseId, kind: d.kind, dueAt: iso(d.dueAt) })), nextAt: iso(next) };
    },
  };
}
