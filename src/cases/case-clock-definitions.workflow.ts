/** What the case clock's workflow and its activities share (types and the wake signal; no I/O). */
import { defineSignal } from '@temporalio/workflow';
import { CASE_CLOCK, type CaseClockDueKind } from './cases.contract';

/** One thing due, as the clock's activity returns it. */
export interface CaseClockDueItem {
  caseId: string;
  kind: CaseClockDueKind;
  /** ISO time the reminder or breach is for; null for plan and close. */
  dueAt: string | null;
}

/** An escalation whose notice failed: tried again on a later round until it is delivered. */
export interface EscalationRetry {
  caseId: string;
  dueAt: string;
  /** Epoch ms of the next try. */
  atMs: number;
}

export interface CaseClockInput {
  /** Escalations still to retry, carried across continue-as-new. */
  retries?: EscalationRetry[];
}

export interface CaseClockActivities {
  caseClockDue(i: { limit: number }): Promise<{ due: CaseClockDueItem[]; nextAt: string | null }>;
  planCaseDeadline(i: { caseId: string }): Promise<unknown>;
  remindCase(i: { caseId: string; dueAt: string }): Promise<{ done: boolean }>;
  escalateCase(i: { caseId: string; dueAt: string }): Promise<{ done: boolean; notified: string[] }>;
  closeQuietCase(i: { caseId: string }): Promise<{ closed: boolean }>;
}

export const caseClockWakeSignal = defineSignal(CASE_CLOCK.wake);
