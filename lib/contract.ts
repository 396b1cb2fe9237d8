/**
 * Names that cross a process boundary: workflow types, decision (update and signal) names, query
 * names, and failure types. Workflows, the worker, the CLI, scripts and adapters take
 * them from here; operators type them into the `temporal` CLI. Free of I/O: workflows import it.
 */

export const WORKFLOW_TYPES = {
  email: 'EmailWorkflow',
  imapPoll: 'ImapPollWorkflow',
  cleanup: 'CleanupWorkflow',
  reindexSync: 'ReindexSyncWorkflow',
  resend: 'ResendWorkflow',
} as const;

/**
 * A person's decisions on an email. Each is a Temporal Update (validated, answered) and a signal
 * of the same name for scripts (same rules; a refusal is audited and shown by the `state` query).
 */
export const DECISIONS = {
  approve: 'approve',
  reject: 'reject',
  redraft: 'redraft',
  resend: 'resend',
  markSent: 'markSent',
} as const;
export type DecisionName = (typeof DECISIONS)[keyof typeof DECISIONS];

/** Signals sent by the system itself (not decisions). */
export const SYSTEM_SIGNALS = {
  /** A genuine follow-up arrived in the thread: the waiting draft is stale, draft again. */
  threadUpdated: 'threadUpdated',
} as const;

export const QUERIES = { draft: 'draft', state: 'state' } as const;

/** Failure types an operator sees in the Web UI, the audit log and `dlq show`. */
export const FAILURE_TYPES = {
  sendInDoubt: 'SEND_IN_DOUBT',
  notInDoubt: 'NOT_IN_DOUBT',
  decisionRefused: 'DECISION_REFUSED',
  alreadySent: 'ALREADY_SENT',
  /** An email or poll names a mailbox id the registry does not have (removed while mail was in flight). */
  unknownMailbox: 'UNKNOWN_MAILBOX',
  /** A mailbox's secret (IMAP or SMTP password) cannot be read: only that mailbox stops. */
  mailboxSecret: 'MAILBOX_SECRET',
  /** A poll of a mailbox the registry marks `enabled: false`. */
  mailboxDisabled: 'MAILBOX_DISABLED',
} as const;

/** Upper bounds for what a person may hand to a decision; larger input is refused, never cut. */
export const DECISION_LIMITS = {
  bodyChars: 100_000,
  byChars: 191,
  reasonChars: 2_000,
  noteChars: 2_000,
} as const;

/** How many drafts one email may get (redrafts by people and by thread follow-ups) before a person must write it. */
export const DEFAULT_MAX_DRAFTS = 6;

/**
 * Custom search attributes the email workflow keeps up to date, so operators can find emails in
 * the Web UI and with `temporal workflow list --query 'EmailStatus="awaiting_approval"'`. The
 * types are the `temporal` CLI's spelling (`--search-attribute EmailStatus=Keyword`).
 */
export const SEARCH_ATTRIBUTES = {
  EmailStatus: 'Keyword',
  EmailPriority: 'Keyword',
  Mailbox: 'Keyword',
  NeedsHuman: 'Bool',
  DraftVersion: 'Int',
  TriageClass: 'Keyword',
  Category: 'Keyword',
} as const;
export type SearchAttributeName = keyof typeof SEARCH_ATTRIBUTES;
