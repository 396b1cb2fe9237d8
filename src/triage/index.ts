/**
 * TODO face header
 */
export { mimeStructure } from './mime-structure';
export { PRIORITIES, priorityKey } from './priorities';
export type { Priority } from './priorities';
export { effectivePriority, higher, parsePriorityRules, priorityFromHeaders } from './priority';
export type { PriorityRule } from './priority';
export { SPAM_BODY_CHARS } from './spam-content';
export type { SpamScorer } from './spam-scorer.port';
export { createSpamdScorer } from './spam-scorer.spamd';
export { TRIAGE_HELD_FOR_PERSON } from './triage-classes';
export type { TriageClass, TriageVerdict } from './triage-classes';
export { readPriorityRules, readSpamdSettings, readTriageSettings } from './triage.config';
export { TRIAGE_ALERT_EVENTS, TRIAGE_AUDIT_EVENTS } from './triage.contract';
export type { TriageAlertEvent } from './triage.contract';
export { bouncedMessageIds, triage, triageMessage } from './triage';
export type { AskedSpamScore, TriageMessage, TriageSettings } from './triage';
