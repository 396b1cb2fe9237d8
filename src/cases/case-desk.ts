/**
 * What an email's own steps do for its case, so that most cases need no workflow of their own
 * (1.4): a mail that reaches a person routes its case and is judged for an automatic send right
 * there; a mail that joins or settles plans the case's deadline again, and wakes the case clock
 * when the case is now due before the clock's next wake. Only a case with work over time of its
 * own — an automatic send in its grace period, a summary to write — starts its case workflow.
 */
import { CASE_CLOCK_STATES } from './cases.contract';
import type { CaseActivities, ReadyDraft } from './case-definitions.workflow';
import type { CaseTurnParts } from './case-turn.activities';

export interface CaseDesk {
  /** A mail of the case waits for a person: the case routed, the draft judged; true when the case workflow must run. */
  mailReady(caseId: string, ready: ReadyDraft): Promise<{ needsWorkflow: boolean }>;
  /** A mail joined or settled: the deadline planned for the case as it is now, the clock woken if it is due sooner. */
  clockMoved(caseId: string): Promise<void>;
}

export interface CaseDeskParts extends Pick<CaseTurnParts, 'routeCase' | 'autonomyVerdict' | 'summaryDue'> {
  /** Absent in a worker without the deadline ports: nothing is planned here, the clock plans it. */
  planCaseDeadline?: CaseActivities['planCaseDeadline'];
  clock: {
    /** Lowers the clock's recorded next wake; true when `at` is earlier (src/cases/case-clock.port.ts). */
    lowerNextWake(at: Date): Promise<boolean>;
    /** Wakes (or starts) the clock; a failure is the caller's to record. */
    wake(): Promise<void>;
  };
  /** Records that the clock could not be woken: it finds the case on its next round all the same. */
  wakeFailed(caseId: string, err: unknown): Promise<void>;
}

export function createCaseDesk(parts: CaseDeskParts): CaseDesk {
  return {
    async mailReady(caseId, r) {
      await parts.routeCase({ caseId, ...(r.category ? { category: r.category } : {}), ...(r.language ? { language: r.language } : {}) });
      const verdict = r.draftId ? await parts.autonomyVerdict({ emailId: r.emailId, draftId: r.draftId }) : null;
      return { needsWorkflow: Boolean(verdict?.send) || (await parts.summaryDue({ caseId })) };
    },

    async clockMoved(caseId) {
      if (!parts.planCaseDeadline) return;
      const c = await parts.planCaseDeadline({ caseId });
      if (c.state !== CASE_CLOCK_STATES.running) return;
      const times = [c.reminded ? null : c.remindAt, c.breached ? null : c.dueAt].filter((t): t is string => t !== null);
      if (times.length === 0) return;
      const earliest = new Date(Math.min(...times.map((t) => Date.parse(t))));
      if (!(await parts.clock.lowerNextWake(earliest))) return;
      await parts.clock.wake().catch((err: unknown) => parts.wakeFailed(caseId, err));
    },
  };
}
