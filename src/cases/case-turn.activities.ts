/**
 * A case workflow's wake-up in one local activity. Until 1.3 each wake-up was up to five
 * activities (route, summarise, autonomy verdict, state, deadline), each a task on the queue and
 * three history events plus a workflow task: the case workflow every email starts cost the
 * server more than the email's own workflow. Here they run one after the other in the worker that
 * runs the case's workflow task, and the history gets one marker. The summary stays an activity of
 * its own, run only when due, because it may wait for the model.
 */
import { SUMMARY_STEP_MARGIN_MS } from './case-summary.activities';
import type { CaseActivities, CaseTurn, CaseTurnActivities, ReadyDraft } from './case-definitions.workflow';

export interface CaseTurnParts extends Pick<CaseActivities, 'routeCase' | 'autonomyVerdict' | 'caseState'> {
  /** Whether the case has mails its summary does not cover yet (no model is asked here). */
  summaryDue(i: { caseId: string }): Promise<boolean>;
  /** The model's time for a summary (LLM_SUMMARY_TIMEOUT_MS): the summary step's timeout follows it. */
  summaryTimeoutMs?: number;
}

export function createCaseTurnActivities(parts: CaseTurnParts): CaseTurnActivities {
  return {
    async caseTurn({ caseId, ready }: { caseId: string; ready: ReadyDraft[] }): Promise<CaseTurn> {
      const verdicts: CaseTurn['verdicts'] = [];
      for (const r of ready) {
        await parts.routeCase({ caseId, ...(r.category ? { category: r.category } : {}), ...(r.language ? { language: r.language } : {}) });
        verdicts.push(r.draftId ? await parts.autonomyVerdict({ emailId: r.emailId, draftId: r.draftId }) : null);
      }
      const summaryDue = ready.length > 0 && (await parts.summaryDue({ caseId }));
      const state = await parts.caseState({ caseId });
      // The workflow cannot read the configuration: the summary step's timeout comes with the turn.
      const step = summaryDue && parts.summaryTimeoutMs ? { summaryStepMs: parts.summaryTimeoutMs + SUMMARY_STEP_MARGIN_MS } : {};
      return { state, verdicts, summaryDue, ...step };
    },
  };
}
