/**
 * Audit event types of one email's path (`audit_log.event_type`): operators filter on them,
 * migrations and tests name them. Free of I/O and imports: the workflow bundle contains it.
 * The union of every feature's events is `src/audit-events.ts`.
 */
export const EMAIL_AUDIT_EVENTS = {
  /** Intake: the message could not be fetched, or parsed. */
  fetchFailed: 'fetch_failed',
  parseFailed: 'parse_failed',
  /** A message past MAX_MESSAGE_BYTES (also of an imported file): stored as a stub, not answered. */
  tooLarge: 'too_large',
  /** Indexed without one of the indexes (the email goes on). */
  indexDegraded: 'index_degraded',
  /** Triage ended the run: not answered. */
  triaged: 'triaged',
  /** The reply of this email was found already handed over: the run ends. */
  alreadySent: 'already_sent',
  /** A reply to a thread was not joined to it (details say why). */
  threadJoinRefused: 'thread_join_refused',
  /** Drafting. */
  redraftRequested: 'redraft_requested',
  /** A newer mail of the same case or thread arrived: a new draft that answers both was requested. */
  draftStale: 'draft_stale',
  draftFailed: 'draft_failed',
  draftLimitReached: 'draft_limit_reached',
  draftHeld: 'draft_held',
  draftFlagged: 'draft_flagged',
  injectionSuspected: 'injection_suspected',
  injectionCheckDegraded: 'injection_check_degraded',
  /** A case reply answered this email too / this email was answered in its case. */
  caseReplyCovered: 'case_reply_covered',
  answeredInCase: 'answered_in_case',
  /** Decisions. */
  draftApproved: 'draft_approved',
  draftRejected: 'draft_rejected',
  /** A person marked a waiting mail as spam: rejected, nothing sent; the spam filter learns it (spam_learned). */
  spamMarked: 'spam_marked',
  decisionRefused: 'decision_refused',
  /** Sending. */
  replySent: 'reply_sent',
  envelopeMismatch: 'envelope_mismatch',
  sentCopyFailed: 'sent_copy_failed',
  sendFailed: 'send_failed',
  sendGaveUp: 'send_gave_up',
  sendWaitsForOperator: 'send_waits_for_operator',
  sendInDoubt: 'send_in_doubt',
  sendForced: 'send_forced',
  forceIgnored: 'force_ignored',
  sendMarkedSent: 'send_marked_sent',
  sendNotFoundInSent: 'send_not_found_in_sent',
  sendBounced: 'send_bounced',
  replyNotIndexed: 'reply_not_indexed',
  /** A person answered outside the assistant (Sent folder, a team address's copy): the draft is withdrawn, nothing is sent. */
  answeredElsewhere: 'answered_elsewhere',
  /** A message in a Sent folder or from a team address was read as an answer to a waiting mail (one row per mail and answer). */
  outsideReplySeen: 'outside_reply_seen',
  /** A mailbox's Sent folder could not be read for answers sent beside the assistant (the inbox poll goes on). */
  sentScanFailed: 'sent_scan_failed',
  /** Shadow mode: the team's own reply was measured against the draft (shadow evidence). */
  shadowMeasured: 'shadow_measured',
  /** Shadow mode: no reply of the team within the wait; the run ended without a measure. */
  shadowUnanswered: 'shadow_unanswered',
  /** The knowledge folder and the reindex run. */
  knowledgeSynced: 'knowledge_synced',
  knowledgeSyncFailed: 'knowledge_sync_failed',
  reindexed: 'reindexed',
  reindexFailed: 'reindex_failed',
} as const;
export type EmailAuditEvent = (typeof EMAIL_AUDIT_EVENTS)[keyof typeof EMAIL_AUDIT_EVENTS];

// This feature's audit event types join the one type every audit row is checked against.
declare module '../platform/audit-event-types' {
  interface AuditEventGroups {
    email: (typeof EMAIL_AUDIT_EVENTS)[keyof typeof EMAIL_AUDIT_EVENTS];
  }
}

/**
 * One reply for several mails of a case: the lead email sends it; each covered email is held for
 * it by this Update (bound to the draft id the reviewer saw) and ends as sent by the signal.
 */
export const CASE_REPLY = {
  cover: 'coverByCaseReply',
  sent: 'caseReplySent',
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
  /** A person answered this mail outside the assistant: withdraw the draft, send nothing. */
  answeredElsewhere: 'answeredElsewhere',
} as const;

export const QUERIES = { draft: 'draft', state: 'state' } as const;

/**
 * Who recorded a decision that no person made, as `resolved_by` of a send and the audit `actor`:
 * the lookup that found a reply in doubt in the Sent folder its provider fills (docs/operating.md).
 */
export const SYSTEM_ACTORS = { mailboxCheck: 'mailbox-check' } as const;

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
