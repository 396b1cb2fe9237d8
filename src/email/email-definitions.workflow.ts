/** The email workflow's Updates, signals and queries, defined once for the workflow and its callers. */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { DraftView } from './email-activities';
import { CASE_REPLY, DECISIONS, QUERIES, SYSTEM_SIGNALS } from './email.contract';
import type { CoverInput, DecisionInput, DecisionResult } from './decisions/decision-rules.workflow';
import type { EmailWorkflowState } from './email-state.workflow';
import type { AnsweredElsewhereNote } from './workflow-starter.port';

export const approveUpdate = defineUpdate<DecisionResult, [DecisionInput['approve']]>(DECISIONS.approve);
export const rejectUpdate = defineUpdate<DecisionResult, [DecisionInput['reject']]>(DECISIONS.reject);
export const redraftUpdate = defineUpdate<DecisionResult, [DecisionInput['redraft']]>(DECISIONS.redraft);
export const resendUpdate = defineUpdate<DecisionResult, [DecisionInput['resend']]>(DECISIONS.resend);
export const markSentUpdate = defineUpdate<DecisionResult, [DecisionInput['markSent']]>(DECISIONS.markSent);
/** Same names as the Updates, for scripts that cannot wait for an answer; refusals are audited. */
export const approveSignal = defineSignal<[DecisionInput['approve']]>(DECISIONS.approve);
export const rejectSignal = defineSignal<[DecisionInput['reject']]>(DECISIONS.reject);
export const redraftSignal = defineSignal<[DecisionInput['redraft']]>(DECISIONS.redraft);
export const resendSignal = defineSignal<[DecisionInput['resend']]>(DECISIONS.resend);
export const markSentSignal = defineSignal<[DecisionInput['markSent']]>(DECISIONS.markSent);
export const threadUpdatedSignal = defineSignal<[{ by?: string }]>(SYSTEM_SIGNALS.threadUpdated);
/** A person answered this mail outside the assistant (its Sent folder, a team address's copy). */
export const answeredElsewhereSignal = defineSignal<[AnsweredElsewhereNote]>(SYSTEM_SIGNALS.answeredElsewhere);
export const draftQuery = defineQuery<DraftView | null>(QUERIES.draft);
export const stateQuery = defineQuery<EmailWorkflowState>(QUERIES.state);
/** This email is answered by one reply of its case, sent by the lead email (src/cases/case-replies.port.ts). */
export const coverByCaseReplyUpdate = defineUpdate<DecisionResult, [CoverInput]>(CASE_REPLY.cover);
/** The case reply that answers this email was sent. */
export const caseReplySentSignal = defineSignal<[CaseReplySent]>(CASE_REPLY.sent);
export interface CaseReplySent {
  leadEmailId: string;
  messageId: string;
  draftId: string;
}
