/** The case workflow's signals and query, defined once for the workflow and its callers. */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { CASE_QUERIES, CASE_SIGNALS } from './cases.contract';

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

/** The activities the case workflow calls (src/cases/*.activities.ts, src/autonomy/autonomy.activities.ts). */
export interface CaseActivities {
  caseState(i: {
    caseId: string;
  }): Promise<{ status: string; closeAt: string | null; owner: string | null; mailbox: string; priority: string }>;
  closeQuietCase(i: { caseId: string }): Promise<{ closed: boolean }>;
  planCaseDeadline(i: { caseId: string }): Promise<{
    state: 'running' | 'paused' | 'closed';
    dueAt: string | null;
    remindAt: string | null;
    reminded: boolean;
    breached: boolean;
    priority: string;
  }>;
  remindCase(i: { caseId: string; dueAt: string }): Promise<{ done: boolean }>;
  escalateCase(i: { caseId: string; dueAt: string }): Promise<{ done: boolean; notified: string[] }>;
  routeCase(i: {
    caseId: string;
    category?: string;
    language?: string;
  }): Promise<{ team: string | null; owner: string | null; rule: string | null }>;
  summariseCase(i: { caseId: string }): Promise<{ written: boolean; kind: string | null }>;
  autonomyVerdict(i: {
    emailId: string;
    draftId: string;
  }): Promise<{ send: boolean; graceMs: number; policy: string | null; reasons: string[] }>;
  autoSend(i: { emailId: string; draftId: string }): Promise<{ sent: boolean; reason: string }>;
}

/** A mail of the case that now waits for a person, as its draftReady signal told it. */
export interface ReadyDraft {
  emailId: string;
  draftId: string | null;
  category?: string | null;
  language?: string | null;
}

export type CaseState = Awaited<ReturnType<CaseActivities['caseState']>>;
export type CaseClock = Awaited<ReturnType<CaseActivities['planCaseDeadline']>>;
export type AutonomyVerdict = Awaited<ReturnType<CaseActivities['autonomyVerdict']>>;

/**
 * One wake-up of a case, read and decided in one local activity (caseTurn): the ready drafts
 * routed and judged for an automatic send, and the case's state (its clock is the case clock's).
 */
export interface CaseTurn {
  state: CaseState;
  /** One per ready draft, in order; null for a mail without a draft (a person writes it). */
  verdicts: Array<AutonomyVerdict | null>;
  /** The case has mails its stored summary does not cover yet: summariseCase runs (an activity, it may ask the model). */
  summaryDue: boolean;
  /**
   * The summary step's start-to-close timeout: the model's time (LLM_SUMMARY_TIMEOUT_MS) and a
   * margin. Absent in turns recorded before it existed: the bookkeeping profile's.
   */
  summaryStepMs?: number;
}

export interface CaseTurnActivities {
  caseTurn(i: { caseId: string; ready: ReadyDraft[] }): Promise<CaseTurn>;
}

export const emailJoinedSignal = defineSignal<[{ emailId: string }]>(CASE_SIGNALS.emailJoined);
export const draftReadySignal = defineSignal<
  [{ emailId: string; draftId: string | null; category?: string | null; language?: string | null }]
>(CASE_SIGNALS.draftReady);
export const caseChangedSignal = defineSignal<[{ emailId?: string; status?: string }]>(CASE_SIGNALS.caseChanged);
export const stopAutoSendSignal = defineSignal<[{ emailId: string; draftId?: string; by: string }]>(CASE_SIGNALS.stopAutoSend);
export const caseQuery = defineQuery<CaseView>(CASE_QUERIES.case);
