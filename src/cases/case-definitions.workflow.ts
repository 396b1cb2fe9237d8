/** The case workflow's signals and query, defined once for the workflow and its callers. */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { CASE_QUERIES, CASE_SIGNALS } from '../platform/contract';

export interface CaseWorkflowInput {
  caseId: string;
  /** What a run hands the next (continue-as-new): automatic sends still in their grace period. */
  carried?: { pending: PendingAutoSend[]; acted: string[] };
}

/** A draft that qualified for an automatic send; it is sent at `sendAtMs` unless stopped or superseded. */
export interface PendingAutoSend {
  emailId: string;
  draftId: string;
  sendAtMs: number;
  policy: string | null;
}

export interface CaseView {
  caseId: string;
  status: string;
  dueAt: string | null;
  remindAt: string | null;
  pending: PendingAutoSend[];
  /** Timers acted on (`remind:<due>`, `escalate:<due>`), so none fires twice. */
  acted: string[];
}

export const emailJoinedSignal = defineSignal<[{ emailId: string }]>(CASE_SIGNALS.emailJoined);
export const draftReadySignal = defineSignal<
  [{ emailId: string; draftId: string | null; category?: string | null; language?: string | null }]
>(CASE_SIGNALS.draftReady);
export const caseChangedSignal = defineSignal<[{ emailId?: string; status?: string }]>(CASE_SIGNALS.caseChanged);
export const stopAutoSendSignal = defineSignal<[{ emailId: string; draftId?: string; by: string }]>(CASE_SIGNALS.stopAutoSend);
export const caseQuery = defineQuery<CaseView>(CASE_QUERIES.case);
