import type { CASE_SIGNALS } from './cases.contract';

export type CaseSignalName = (typeof CASE_SIGNALS)[keyof typeof CASE_SIGNALS];

/** What the activities tell case workflows and the emails a case reply answered. */
export interface CaseSignals {
  /** Signals the case's workflow, starting it when it does not run (signal-with-start). */
  notify(caseId: string, signal: CaseSignalName, payload: Record<string, unknown>): Promise<void>;
  /** Wakes the case clock (src/cases/case-clock.workflow.ts), starting it when it does not run. */
  wakeClock(): Promise<void>;
  /** Tells a covered email that the case reply answering it was sent; false when its run ended. */
  caseReplySent(emailId: string, payload: { leadEmailId: string; messageId: string; draftId: string }): Promise<boolean>;
}
