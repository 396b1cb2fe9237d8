/**
 * Why triage lets an email go without a reply (`emails.triage_class`), and which of those a person
 * may or may not pull back.
 */
/**
 * Why an incoming email gets no draft (stored as `emails.triage_class`). Order matters only for
 * documentation; src/triage/triage.ts decides which class wins when several apply.
 * `feedback_report` (an abuse complaint about our mail, RFC 5965) is not ignored: it waits for a
 * person. `duplicate` is the copy of a message that another of our mailboxes answers.
 */
export const TRIAGE_CLASSES = ['own_address', 'spam', 'feedback_report', 'bounce', 'auto_reply', 'list', 'no_reply', 'duplicate'] as const;

export type TriageClass = (typeof TRIAGE_CLASSES)[number];

/** Classes `TRIAGE_ALLOW` cannot open: a loop, a complaint about our mail, a copy answered elsewhere. */
/** The triage class of an email and why. */
export interface TriageVerdict {
  class: TriageClass;
  /** One line for operators: which header or pattern decided. */
  reason: string;
}

export const TRIAGE_NEVER_ALLOWED: readonly TriageClass[] = Object.freeze(['own_address', 'feedback_report', 'duplicate']);

/** Classes a person must see (the email waits in manual review without a draft) rather than ignored ones. */
export const TRIAGE_HELD_FOR_PERSON: readonly TriageClass[] = Object.freeze(['feedback_report']);
