/**
 * Every audit event type (`audit_log.event_type`) at run time: the union of what each feature
 * declares in its contract module (`src/<feature>/<feature>.contract.ts`) and what platform/
 * declares for the shared parts. Operators filter on these words; migrations and tests name them:
 * they never change. The type of one is `AuditEventType` (src/platform/audit-event-types.ts), to
 * which each contract adds its group; the check below keeps the two the same.
 *
 * Why here: the union must import every feature, and no feature imports this file: like
 * src/config.ts, it sits outside the features and only the processes and tests read it.
 */
import { ATTACHMENT_EVENTS } from './attachments';
import { AUTONOMY_EVENTS } from './autonomy';
import { CASE_AUDIT_EVENTS } from './cases';
import { EMAIL_AUDIT_EVENTS } from './email';
import { GUIDANCE_AUDIT_EVENTS } from './guidance';
import { IMPORT_AUDIT_EVENTS } from './archive-import';
import { MAILBOX_AUDIT_EVENTS } from './mailboxes';
import { OPERATIONS_AUDIT_EVENTS } from './operations';
import { PLATFORM_AUDIT_EVENTS } from './platform/contract';
import { PRIVACY_EVENTS } from './privacy';
import { REPLAY_AUDIT_EVENTS } from './replay';
import { REVIEW_INBOX_AUDIT_EVENTS } from './review-inbox';
import { RETRIEVAL_AUDIT_EVENTS } from './retrieval';
import { TRIAGE_AUDIT_EVENTS } from './triage';
import type { AuditEventType } from './platform/audit-event-types';

export type { AuditEventType };

/** Each group of audit events, by who declares it. */
export const AUDIT_EVENT_GROUPS = Object.freeze({
  platform: PLATFORM_AUDIT_EVENTS,
  email: EMAIL_AUDIT_EVENTS,
  mailboxes: MAILBOX_AUDIT_EVENTS,
  cases: CASE_AUDIT_EVENTS,
  autonomy: AUTONOMY_EVENTS,
  triage: TRIAGE_AUDIT_EVENTS,
  attachments: ATTACHMENT_EVENTS,
  retrieval: RETRIEVAL_AUDIT_EVENTS,
  operations: OPERATIONS_AUDIT_EVENTS,
  privacy: PRIVACY_EVENTS,
  archiveImport: IMPORT_AUDIT_EVENTS,
  reviewInbox: REVIEW_INBOX_AUDIT_EVENTS,
  guidance: GUIDANCE_AUDIT_EVENTS,
  replay: REPLAY_AUDIT_EVENTS,
});
type Groups = typeof AUDIT_EVENT_GROUPS;
type ValuesOf<T> = T[keyof T];

type EveryGroup = { [G in keyof Groups]: ValuesOf<Groups[G]> }[keyof Groups];
/** The groups listed here and those the contracts add to the type are the same (a compile error otherwise). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const groupsMatch: Same<EveryGroup, AuditEventType> = true;
void groupsMatch;

/** Every audit event type, once. */
export const AUDIT_EVENT_TYPES: ReadonlySet<AuditEventType> = Object.freeze(
  new Set(Object.values(AUDIT_EVENT_GROUPS).flatMap((group) => Object.values(group) as AuditEventType[])),
);
