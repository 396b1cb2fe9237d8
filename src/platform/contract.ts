/**
 * Names that cross a process boundary: workflow types, decision (update and signal) names, query
 * names, and failure types. Workflows, the worker, the CLI, scripts and adapters take
 * them from here; operators type them into the `temporal` CLI. Free of I/O: workflows import it.
 */
import { STATUS } from './domain';

export const WORKFLOW_TYPES = {
  email: 'EmailWorkflow',
  imapPoll: 'ImapPollWorkflow',
  cleanup: 'CleanupWorkflow',
  reindexSync: 'ReindexSyncWorkflow',
  resend: 'ResendWorkflow',
  /** Started by the retention schedule: deletes what the RETENTION_* settings no longer keep. */
  retentionPurge: 'RetentionPurgeWorkflow',
  /** One per mailbox (id `watch-<mailbox id>`): holds each folder in IMAP IDLE and wakes its poll. */
  mailboxWatch: 'MailboxWatchWorkflow',
  /**
   * One per case (workflow id = the case id, `case-…`), only while the case has work of its own
   * over time: an automatic send in its grace period, a summary to write (1.3: every case, with
   * its deadlines).
   */
  case: 'CaseWorkflow',
  /** One per installation (id `case-clock`): every case's reminder, breach and quiet close, on one timer. */
  caseClock: 'CaseClockWorkflow',
} as const;

/** The case clock: its workflow id, and the signal that wakes it when a case is due before its next wake. */
export const CASE_CLOCK = { workflowId: 'case-clock', wake: 'caseClockWake' } as const;

/** What the system tells a case workflow (each by signal-with-start: the first one starts it). */
export const CASE_SIGNALS = {
  /** A mail joined the case (1.3 runs; 1.4 tells the case clock instead). */
  emailJoined: 'emailJoined',
  /** A mail of the case waits for a person (a draft to approve, or a reply to write). */
  draftReady: 'draftReady',
  /** Something that moves the case's clock happened (a reply sent, a mail settled; 1.3 runs). */
  caseChanged: 'caseChanged',
  /** A reviewer stopped a pending automatic send. */
  stopAutoSend: 'stopAutoSend',
} as const;
export const CASE_QUERIES = { case: 'case' } as const;

/**
 * Patch ids: one per release whose workflow changes break the last release's
 * histories, removed on the schedule in docs/changing-workflows.md.
 */
export const WORKFLOW_PATCHES = {
  /** 1.4: a case workflow's wake-up is one local activity (caseTurn). Deprecate in 1.5, remove in 1.6. */
  release14: 'release-1.4',
} as const;

/**
 * One reply for several mails of a case: the lead email sends it; each covered email is held for
 * it by this Update (bound to the draft id the reviewer saw) and ends as sent by the signal.
 */
export const CASE_REPLY = {
  cover: 'coverByCaseReply',
  sent: 'caseReplySent',
} as const;

/**
 * Where a folder's IDLE watcher stands (`mailbox_watchers.state`, `email-rag status`, the
 * `email_rag_idle_watchers` gauge). `off` is never stored: no row, or IMAP_IDLE=off.
 */
export const WATCHER_STATES = {
  connecting: 'connecting',
  idle: 'idle',
  reconnecting: 'reconnecting',
  stopped: 'stopped',
} as const;
export type WatcherState = (typeof WATCHER_STATES)[keyof typeof WATCHER_STATES];
/** What status and metrics show for a folder: a stored state, `stale` (its heartbeat stopped) or `off`. */
export const WATCHER_VIEW = { ...WATCHER_STATES, stale: 'stale', off: 'off' } as const;
export const WATCHER_VIEWS = Object.values(WATCHER_VIEW);
export type WatcherView = (typeof WATCHER_VIEW)[keyof typeof WATCHER_VIEW];

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

/** What the email workflow waits for (`waitingFor.kind` of its `state` query); a decision must fit it. */
export const WAITING_KINDS = {
  /** A draft to approve, reject or redraft. */
  approval: 'approval',
  /** No usable draft: a person writes the reply (the email's status of the same name). */
  manualReview: STATUS.manualReview,
  /** The approved reply waits for its next send round. */
  sendRound: 'send_round',
  /** The SMTP server may have the reply: a person checks and decides. */
  sendInDoubt: 'send_in_doubt',
} as const;

/**
 * Who recorded a decision that no person made, as `resolved_by` of a send and the audit `actor`:
 * the lookup that found a reply in doubt in the Sent folder its provider fills (docs/operating.md).
 */
export const SYSTEM_ACTORS = { mailboxCheck: 'mailbox-check' } as const;

/**
 * Where a case's response clock stands (the answer of the `planCaseDeadline` activity): running
 * (open, a customer's mail unanswered), paused (waiting for the customer, or nothing unanswered),
 * closed.
 */
export const CASE_CLOCK_STATES = { running: 'running', paused: 'paused', closed: 'closed' } as const;
export type CaseClockState = (typeof CASE_CLOCK_STATES)[keyof typeof CASE_CLOCK_STATES];

/**
 * Failure types an operator sees in the Web UI, the audit log and `dlq show`: the `code` of the
 * product's errors (src/platform/errors.ts), which the queue interceptor passes on as the ApplicationFailure
 * `type`. Workflows decide on these, never on a failure's message text.
 */
export const FAILURE_TYPES = {
  // --- decisions and sends, as a person meets them
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
  /**
   * A mailbox's OAuth2 sign-in cannot get an access token (refresh token revoked or expired,
   * client secret wrong, consent withdrawn): only that mailbox stops until an operator fixes it.
   */
  mailboxAuthExpired: 'MAILBOX_AUTH_EXPIRED',

  // --- the error classes' defaults, and failures nobody foresaw
  transient: 'TRANSIENT',
  permanent: 'PERMANENT',
  dependency: 'DEPENDENCY',
  config: 'CONFIG',
  unexpected: 'UNEXPECTED',

  // --- the message and its store
  /** A message above MAX_MESSAGE_BYTES: never downloaded or stored, never retried. */
  tooLarge: 'TOO_LARGE',
  messageGone: 'MESSAGE_GONE',
  rawIncomplete: 'RAW_INCOMPLETE',
  malformedMessage: 'MALFORMED_MESSAGE',
  uidValidityChanged: 'UIDVALIDITY_CHANGED',
  noReplyAddress: 'NO_REPLY_ADDRESS',

  // --- sending
  badForce: 'BAD_FORCE',
  badActor: 'BAD_ACTOR',
  badRecipient: 'BAD_RECIPIENT',
  draftGone: 'DRAFT_GONE',
  draftNotApproved: 'DRAFT_NOT_APPROVED',
  envelopeMismatch: 'ENVELOPE_MISMATCH',
  sendRowMissing: 'SEND_ROW_MISSING',
  sendContended: 'SEND_CONTENDED',
  sendSuperseded: 'SEND_SUPERSEDED',
  smtpTransient: 'SMTP_TRANSIENT',
  smtpRejected: 'SMTP_REJECTED',
  smtpAuth: 'SMTP_AUTH',
  smtpEnvelope: 'SMTP_ENVELOPE',
  smtpUnavailable: 'SMTP_UNAVAILABLE',
  smtpUnclear: 'SMTP_UNCLEAR',
  /** The SMTP session broke after the final dot of DATA: the reply may have been delivered. */
  smtpInDoubt: 'SMTP_IN_DOUBT',

  // --- IMAP
  imapNoMailbox: 'IMAP_NO_MAILBOX',
  imapBusy: 'IMAP_BUSY',
  imapAuth: 'IMAP_AUTH',
  imapUnavailable: 'IMAP_UNAVAILABLE',
  /** A folder's watcher noticed new mail but the mailbox has no poll schedule to wake. */
  pollScheduleMissing: 'POLL_SCHEDULE_MISSING',

  // --- MariaDB
  dbPacketTooLarge: 'DB_PACKET_TOO_LARGE',
  dbRejected: 'DB_REJECTED',
  dbUnavailable: 'DB_UNAVAILABLE',
  migrationChanged: 'MIGRATION_CHANGED',

  // --- retrieval (full-text, Qdrant, ArangoDB, embeddings)
  indexDegraded: 'INDEX_DEGRADED',
  qdrantTimeout: 'QDRANT_TIMEOUT',
  qdrantUnexpectedResponse: 'QDRANT_UNEXPECTED_RESPONSE',
  qdrantUnavailable: 'QDRANT_UNAVAILABLE',
  qdrantCollectionMissing: 'QDRANT_COLLECTION_MISSING',
  qdrantSchema: 'QDRANT_SCHEMA',
  qdrantVectorSizeMismatch: 'QDRANT_VECTOR_SIZE_MISMATCH',
  arangoTimeout: 'ARANGO_TIMEOUT',
  arangoUnavailable: 'ARANGO_UNAVAILABLE',
  embeddingTimeout: 'EMBEDDING_TIMEOUT',
  embeddingUnavailable: 'EMBEDDING_UNAVAILABLE',
  embeddingInvalidResponse: 'EMBEDDING_INVALID_RESPONSE',

  // --- the LLM (see LLM_FAILURE_TYPES)
  llmTimeout: 'LLM_TIMEOUT',
  llmUnavailable: 'LLM_UNAVAILABLE',

  // --- payload encryption, Temporal
  payloadKeyUnknown: 'PAYLOAD_KEY_UNKNOWN',
  payloadCorrupt: 'PAYLOAD_CORRUPT',
  temporalUnavailable: 'TEMPORAL_UNAVAILABLE',

  // --- cases
  /** A missed deadline could not be reported (escalation mail or webhook failed): retried; the breach stays recorded. */
  escalationFailed: 'ESCALATION_FAILED',

  // --- personal data
  /** An erasure met a send of the person's that is running or in doubt, and no one forced it. */
  privacyEraseRefused: 'PRIVACY_ERASE_REFUSED',
} as const;

/**
 * HTTP services whose error answers become `<SERVICE>_HTTP_<status>` failure types (e.g.
 * `LLM_HTTP_401`, `QDRANT_HTTP_429`): one type per status, so operators can group by it.
 */
export const HTTP_SERVICES = { llm: 'LLM', qdrant: 'QDRANT', arango: 'ARANGO', embedding: 'EMBEDDING' } as const;
export type HttpService = keyof typeof HTTP_SERVICES;
export type HttpFailureType = `${(typeof HTTP_SERVICES)[HttpService]}_HTTP_${number}`;

export function httpFailureType(service: HttpService, status: number): HttpFailureType {
  return `${HTTP_SERVICES[service]}_HTTP_${status}`;
}

/** Every failure type (error `code`) the product raises. */
export type FailureCode = (typeof FAILURE_TYPES)[keyof typeof FAILURE_TYPES] | HttpFailureType;

/** Failures of the LLM itself (besides its HTTP answers, see isLlmFailure). */
export const LLM_FAILURE_TYPES: readonly FailureCode[] = Object.freeze([FAILURE_TYPES.llmTimeout, FAILURE_TYPES.llmUnavailable]);

/**
 * Whether a failure type is the LLM's: a draft the LLM could not make goes to a person
 * (manual_review), while any other permanent failure of the draft step ends the email.
 */
export function isLlmFailure(type: string | null | undefined): boolean {
  if (!type) return false;
  return (LLM_FAILURE_TYPES as readonly string[]).includes(type) || type.startsWith(`${HTTP_SERVICES.llm}_HTTP_`);
}

/**
 * Queue steps: the `step` of a `queue_jobs` row, the step a failure names (`failedStepOf`) and
 * `dlq`'s grouping. src/platform/activity-profiles.workflow.ts maps every planned activity to one.
 */
export const STEPS = {
  poll: 'poll',
  /** The combined fetch + parse + index activity; it writes no row of its own. */
  ingest: 'ingest',
  fetch: 'fetch',
  parse: 'parse',
  index: 'index',
  draft: 'draft',
  decide: 'decide',
  send: 'send',
  cleanup: 'cleanup',
  reindex: 'reindex',
  resend: 'resend',
} as const;
export type StepName = (typeof STEPS)[keyof typeof STEPS];

/**
 * Notes a drafter attaches to a draft (`drafts.flags`) for the reviewer, who can filter on them.
 * Stored with the draft, so a name never changes once released.
 */
export const DRAFT_FLAGS = {
  /** Composed from retrieved passages without a model. */
  offlineDrafter: 'offline_drafter',
  /** No retrieved passage answered the question: the draft says so and a person must answer. */
  noRelevantContext: 'no_relevant_context',
  /** A cited passage is in another language than the reply: it is quoted as it is, and named as such. */
  crossLanguageSource: 'cross_language_source',
  /**
   * A factual sentence of the draft (an amount, a date, a policy, a promise, a step) is not
   * supported by the context, or is tied to a passage that does not support it (src/drafting/grounding-check.ts).
   */
  unsupportedClaims: 'unsupported_claims',
  /** The model's answer was not JSON of the schema; asked again, the second answer was. */
  jsonRepaired: 'json_repaired',
  /** Twice no JSON of the schema: the draft is empty and a person writes the reply. */
  jsonInvalidDefaults: 'json_invalid_defaults',
  /** The prompt exceeded the model's window: the model saw the mail and the context cut short, without examples (src/drafting/prompt-window.ts). */
  promptShortened: 'prompt_shortened',
} as const;
export type DraftFlag = (typeof DRAFT_FLAGS)[keyof typeof DRAFT_FLAGS];

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
 * Machine drafts to one correspondent per hour (REPLY_LIMIT_PER_HOUR): two auto-responders
 * answering each other would otherwise fill the review queue. Five covers a customer's busy hour.
 */
export const DEFAULT_REPLY_LIMIT_PER_HOUR = 5;

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
  /** The case workflow's status (src/platform/domain.ts CASE_STATUS) and owner. */
  CaseStatus: 'Keyword',
  CaseOwner: 'Keyword',
} as const;
export type SearchAttributeName = keyof typeof SEARCH_ATTRIBUTES;

/**
 * Earned autonomy (docs/cases.md "Earned autonomy"): the actor of an automatic approval (its audit
 * events are in src/autonomy/autonomy.contract.ts). `autonomy:<policy>` is never a person: its approvals are
 * recorded as outcomes but left out of the record that earns a category its autonomy.
 */
export const AUTONOMY_ACTOR_PREFIX = 'autonomy:';
/** What an automatic approval names as `by`. */
export function autonomyActor(policy: string): string {
  return `${AUTONOMY_ACTOR_PREFIX}${policy}`;
}
/** A LIKE pattern that matches every automatic approver's name (the prefix's `_` escaped): SQL's isAutomaticActor. */
export const AUTONOMY_ACTOR_LIKE = `${AUTONOMY_ACTOR_PREFIX.replace(/[_%]/g, '\\$&')}%`;
/** Whether a decision was made by the autonomy policy rather than by a person. */
export function isAutomaticActor(by: string | null | undefined): boolean {
  return typeof by === 'string' && by.startsWith(AUTONOMY_ACTOR_PREFIX);
}
/** What became of an automatic send (`autonomy_pending.state`). */
export const AUTO_SEND_STATES = { pending: 'pending', sent: 'sent', stopped: 'stopped', skipped: 'skipped' } as const;
export type AutoSendState = (typeof AUTO_SEND_STATES)[keyof typeof AUTO_SEND_STATES];

/** What the access log records; `email-rag audit access` shows and filters on these. */
export const ACCESS_ACTIONS = {
  emailViewed: 'email_viewed',
  sourceViewed: 'source_viewed',
  /** The case page: one row per mail it lists (their subjects, summary and history are on it). */
  caseViewed: 'case_viewed',
  /** An attachment downloaded from the review page (detail: the part and the file name). */
  attachmentDownloaded: 'attachment_downloaded',
  exported: 'privacy_export',
  erased: 'privacy_erase',
} as const;
export type AccessAction = (typeof ACCESS_ACTIONS)[keyof typeof ACCESS_ACTIONS];

/**
 * Audit event types (`audit_log.event_type`) written by what every feature shares: a status
 * transition (the activity context and the email's status recorder), and the queue interceptor's
 * retry and dead-letter rows (workers/queue-interceptor.ts; operations counts them). Each feature
 * declares its own events in its `<feature>.contract.ts`; src/audit-events.ts holds the union.
 */
export const PLATFORM_AUDIT_EVENTS = {
  statusChanged: 'status_changed',
  retryScheduled: 'retry_scheduled',
  jobDead: 'job_dead',
  /** An attempt ended with its worker (crash, kill, deploy): run again, not counted against the step's budget. */
  attemptLost: 'attempt_lost',
} as const;
export type PlatformAuditEvent = (typeof PLATFORM_AUDIT_EVENTS)[keyof typeof PLATFORM_AUDIT_EVENTS];

/**
 * Shared by every part a check looks at (the LLM check of drafting, the doctor of operations).
 * `email-rag doctor`: the verdict of each part (the JSON's `verdict`, and the exit code's source:
 * a `fail` exits 1, a `warn` only with `--strict`). Scripts and monitors match on these words.
 */
export const DOCTOR_VERDICTS = {
  ok: 'ok',
  warn: 'warn',
  fail: 'fail',
} as const;
export type DoctorVerdict = (typeof DOCTOR_VERDICTS)[keyof typeof DOCTOR_VERDICTS];
