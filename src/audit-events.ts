/**
 * Every audit event type (`audit_log.event_type`), the union of what each feature declares in its
 * contract module (`src/<feature>/<feature>.contract.ts`) and what platform/ declares for the
 * shared parts. Operators filter on these words; migrations and tests name them: they never change.
 *
 * Why here: the union must import every feature, and platform/ imports none. This module sits
 * beside src/config.ts, outside the features, like the configuration that reads every feature's
 * section. The audit log's port (src/platform/store.port.ts) names `AuditEventType` as a type
 * only, as platform/ names the `Config` type: the import vanishes in the build, so nothing of a
 * feature runs in platform/, and a misspelt event type is a type error wherever an audit row is written.
 */
import { ATTACHMENT_EVENTS } from './attachments/attachments.contract';
import { AUTONOMY_EVENTS } from './autonomy/autonomy.contract';
import { CASE_AUDIT_EVENTS } from './cases/cases.contract';
import { EMAIL_AUDIT_EVENTS } from './email/email.contract';
import { GUIDANCE_AUDIT_EVENTS } from './guidance/guidance.contract';
import { IMPORT_AUDIT_EVENTS } from './archive-import/archive-import.contract';
import { MAILBOX_AUDIT_EVENTS } from './mailboxes/mailboxes.contract';
import { OPERATIONS_AUDIT_EVENTS } from './operations/operations.contract';
import { PLATFORM_AUDIT_EVENTS } from './platform/contract';
import { PRIVACY_EVENTS } from './privacy/privacy.contract';
import { REPLAY_AUDIT_EVENTS } from './replay/replay.contract';
import { REVIEW_INBOX_AUDIT_EVENTS } from './review-inbox/review-inbox.contract';
import { RETRIEVAL_AUDIT_EVENTS } from './retrieval/retrieval.contract';
import { TRIAGE_AUDIT_EVENTS } from './triage/triage.contract';

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

export type AuditEventType = { [G in keyof Groups]: ValuesOf<Groups[G]> }[keyof Groups];

/** Every audit event type, once. */
export const AUDIT_EVENT_TYPES: ReadonlySet<AuditEventType> = Object.freeze(
  new Set(Object.values(AUDIT_EVENT_GROUPS).flatMap((group) => Object.values(group) as AuditEventType[])),
);
