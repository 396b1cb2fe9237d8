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

/**
 * Patch ids: one per release whose workflow changes break the last release's histories, checked
 * at every place that release changed, removed on the schedule in docs/changing-workflows.md.
 */
export const WORKFLOW_PATCHES = {
  /** 1.4: a case workflow's wake-up is one local activity (caseTurn). Deprecate in 1.5, remove in 1.6. */
  release14: 'release-1.4',
} as const;

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
   * An OAuth2 mailbox whose refresh-token file does not exist yet: added to the registry, not yet
   * signed in (`email-rag mailboxes authorize`). Its polls wait without failing: no dead letter.
   */
  mailboxNotSignedIn: 'MAILBOX_NOT_SIGNED_IN',
  /**
   * A mailbox's OAuth2 sign-in cannot get an access token (refresh token revoked or expired,
   * client secret wrong, consent withdrawn): only that mailbox stops until an operator fixes it.
   */
  mailboxAuthExpired: 'MAILBOX_AUTH_EXPIRED',

  // --- the error classes' defaults, and failures nobody foresaw
  /**
   * An attempt still running close to its start-to-close timeout on a live worker (it hung): the
   * worker gives it up itself, and the attempt counts against the step's budget (src/platform/attempt-deadline.ts).
   */
  stepTimedOut: 'STEP_TIMED_OUT',
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
  /** A person answered the mail outside the assistant: the draft step and the send step stand down. */
  answeredElsewhere: 'ANSWERED_ELSEWHERE',
  /** The mailbox runs in shadow mode: the send step never sends. */
  shadowMode: 'SHADOW_MODE',
  /**
   * The text to send names an internal source id (a draft stored before drafts kept their sources
   * apart, approved unchanged): nothing is sent; a person approves a text without it.
   */
  internalSourceIds: 'INTERNAL_SOURCE_IDS',
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
