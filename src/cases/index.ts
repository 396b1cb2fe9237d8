/**
 * The face of cases/: what the other features and the processes may use of it; everything
 * else in the folder is its own.
 *
 * Cases: a correspondent's open work across mails. The case clock, the case workflow, routing,
 * deadlines, summaries, escalation and case replies; `createEmailCase` implements the email's
 * `EmailCase` port.
 */
export { createMariaDbCaseClaims } from './case-claims.mariadb';
export type { CaseClaims } from './case-claims.port';
export { createCaseClockActivities } from './case-clock.activities';
export { createMariaDbCaseClock } from './case-clock.mariadb';
export { createCaseDeadlineActivities } from './case-deadline.activities';
export { createCaseDesk } from './case-desk';
export { createMariaDbCaseFigures } from './case-figures.mariadb';
export type { CaseFigures } from './case-figures.port';
export type { CaseReplies, CaseReplyResult } from './case-replies.port';
export { createCaseReplies } from './case-replies';
export { createCaseRoutingActivities } from './case-routing.activities';
export { createMariaDbCaseRouting } from './case-routing.mariadb';
export type { CaseRouting } from './case-routing.port';
export type { CaseSignals } from './case-signals.port';
export { createTemporalCaseSignals } from './case-signals.temporal';
export { CASE_STATUS } from './case-status';
export { createMariaDbCaseStore } from './case-store.mariadb';
export { createMariaDbCaseSummaryStore } from './case-summary-store.mariadb';
export { createCaseSummaryActivities } from './case-summary.activities';
export { createCaseTurnActivities } from './case-turn.activities';
export { createMariaDbCaseView } from './case-view.mariadb';
export type { CaseDetails, CaseEmail } from './case-view.mariadb';
export { createCaseActivities } from './case.activities';
export type { CaseDeadlinePorts, CasesDeps } from './cases-deps';
export { casesCommands } from './cases.cli';
export { readCasesConfig } from './cases.config';
export { CASE_AUDIT_EVENTS, CASE_SIGNALS } from './cases.contract';
export { createEmailCase } from './email-case';
export { createEscalationMailNotifier } from './escalation.smtp';
export { createWebhookNotifier } from './escalation.webhook';
