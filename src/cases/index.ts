/**
 * The face of cases/: what the other features and the processes may use of it, none of
 * which loads a driver or SDK (what does is in index.adapters.ts); everything else in the folder is
 * its own.
 *
 * Cases: a correspondent's open work across mails. The case clock, the case workflow, routing,
 * deadlines, summaries, escalation and case replies; `createEmailCase` implements the email's
 * `EmailCase` port.
 */
export type { CaseClaims } from './case-claims.port';
export { createCaseClockActivities } from './case-clock.activities';
export { createCaseDeadlineActivities } from './case-deadline.activities';
export { createCaseDesk } from './case-desk';
export type { CaseFigures } from './case-figures.port';
export type { CaseReplies, CaseReplyResult } from './case-replies.port';
export { createCaseRoutingActivities } from './case-routing.activities';
export type { CaseRouting } from './case-routing.port';
export type { CaseSignals } from './case-signals.port';
export { CASE_STATUS } from './case-status';
export { createCaseSummaryActivities } from './case-summary.activities';
export { createCaseTurnActivities } from './case-turn.activities';
export type { CaseDetails, CaseEmail } from './case-view.mariadb';
export { createCaseActivities } from './case.activities';
export type { CaseDeadlinePorts, CasesDeps } from './cases-deps';
export { readCasesConfig } from './cases.config';
export { CASE_AUDIT_EVENTS, CASE_SIGNALS } from './cases.contract';
export { createEmailCase } from './email-case';
export { createEscalationMailNotifier } from './escalation.smtp';
export { createWebhookNotifier } from './escalation.webhook';
