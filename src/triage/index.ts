/**
 * The face of triage/: what the other features and the processes may use of it, none of
 * which loads a driver or SDK (what does is in index.adapters.ts); everything else in the folder is
 * its own.
 *
 * Triage and priority: which mail deserves no reply (bounces, auto-replies, lists, spam) and why,
 * the spam scorers, and an email's priority and its aging.
 */
export { mimeStructure } from './mime-structure';
export { PRIORITIES, priorityKey } from './priorities';
export type { Priority } from './priorities';
export { effectivePriority, higher, parsePriorityRules, priorityFromHeaders } from './priority';
export type { PriorityRule } from './priority';
export { SPAM_BODY_CHARS } from './spam-content';
export type { SpamClass, SpamLearner, SpamScorer } from './spam-scorer.port';
export { createSpamdLearner, createSpamdScorer } from './spam-scorer.spamd';
export { TRIAGE_HELD_FOR_PERSON } from './triage-classes';
export type { TriageClass, TriageVerdict } from './triage-classes';
export { readPriorityRules, readSpamdSettings, readTriageSettings } from './triage.config';
export { TRIAGE_ALERT_EVENTS, TRIAGE_AUDIT_EVENTS } from './triage.contract';
export type { TriageAlertEvent } from './triage.contract';
export { bouncedMessageIds, triage, triageDecision, triageMessage } from './triage';
export type { KnownSenders } from './known-sender.port';
export type { AskedSpamScore, TriageMessage, TriageSettings } from './triage';
