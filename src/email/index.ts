/**
 * The face of email/: what the other features and the processes may use of it, none of
 * which loads a driver or SDK (what does is in index.adapters.ts); everything else in the folder is
 * its own.
 *
 * One email from its poll to the sent reply: the email's workflow and its activities
 * (`createEmailActivities`, taking `EmailDeps`), its status words, stores and their adapters, the
 * workflow starter and signals, and the `EmailCase` port through which its steps reach their case.
 */
export type { TemporalDecisions } from './decisions/decisions.temporal';
export { CONTEXT_LIMIT, withinBudget } from './draft/draft-context';
export { draftGuidance } from './draft/draft-guidance';
export type { EmailCase } from './email-case.port';
export type { DraftMeasure } from './answered-elsewhere/draft-measure.port';
export type { OutsideReply } from './answered-elsewhere/outside-replies.port';
export type { EmailDeps, MailSettings } from './email-deps';
export { emailDisplay } from './email-display';
export type { EmailWorkflowInput } from './email-input';
export {
  EMAIL_STATUSES,
  ENDED_STATUSES,
  NEEDS_PERSON_STATUSES,
  SEND_PROBLEM_STATUSES,
  SEND_STATUS,
  SEND_STATUSES,
  STATUS,
  TAKEN_FOR_REAL_STATUSES,
  UNFINISHED_STATUSES,
  WAITING_KINDS,
  hasEnded,
  needsPerson,
} from './email-status';
export type { EmailStatus, NeedsPersonStatus, SendProblemStatus, SendStatus, UnfinishedStatus } from './email-status';
export type { DraftRecord, DraftStore, EmailRecord, MessageStore, SendLedger } from './email-stores.port';
export { readEmailConfig } from './email.config';
export { CASE_REPLY, DECISION_LIMITS, EMAIL_AUDIT_EVENTS } from './email.contract';
export type { DecisionInput } from './email.workflow';
export { parseRawEmail } from './intake/mail-parser';
export { inDoubtAdvice } from './send/send-claim';
export { stepScope } from './step-scope';
export type { StepTracker } from './step-scope';
export type { WorkflowSignals, WorkflowStarter } from './workflow-starter.port';
