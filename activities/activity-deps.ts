import type { Category } from '../src/drafting/categories';
import type { AutonomyPolicy } from '../src/autonomy/autonomy-policy';
import type { IntentDetectorSettings } from '../src/drafting/intent-detector';
import type { AutoApprover, AutonomyStore } from '../src/autonomy/autonomy.port';
import type { TriageSettings } from '../src/triage/triage';
import type { SpamScorer } from '../src/triage/spam-scorer.port';
import type { AttachmentStore, AttachmentTextReader } from '../src/attachments/attachments.port';
import type { BounceLedger } from '../src/email/bounce-ledger.port';
import type { BusinessCalendars } from '../src/business-time/business-calendars.port';
import type { CaseClock } from '../src/cases/case-clock.port';
import type { Drafter } from '../src/drafting/drafter.port';
import type { GuidanceSource } from '../src/guidance/guidance.port';
import type { DraftClaimStore } from '../src/drafting/draft-claims.port';
import type { ApprovedExamples } from '../src/drafting/approved-examples.port';
import type { DraftExampleSettings } from '../src/drafting/drafting.config';
import type { Embedder } from '../src/retrieval/embedder.port';
import type { EscalationNotifiers } from '../src/cases/escalation-notifier.port';
import type { MailboxDirectory } from '../src/mailboxes/mailbox-directory.port';
import type { MailboxHealth } from '../src/mailboxes/mailbox-health.port';
import type { AuditLog, DraftStore, JobLedger, MessageStore, SendLedger, WatermarkStore } from '../src/platform/store.port';
import type { VectorIndex } from '../src/retrieval/vector-index.port';
import type { WorkflowInspector } from '../src/operations/workflow-inspector.port';
import type { WorkflowSignals, WorkflowStarter } from '../src/email/workflow-starter.port';
import type { CaseReplySettler } from '../src/cases/case-replies.port';
import type { CaseSummaryStore } from '../src/cases/case-summaries.port';
import type { CaseDeps } from '../src/cases/case.activities';
import type { CaseDesk } from '../src/cases/case-desk';
import type { CaseRoutingDeps } from '../src/cases/case-routing.activities';
import type { IdleDeps } from '../src/mailboxes/watch.activities';
import type { RetentionDeps } from '../src/privacy/retention.activities';
import type { ReplayDeps } from '../src/replay/replay.activities';

/**
 * Settings of the whole installation the activities need; taken from the validated config.
 * Everything that belongs to one mailbox (account, folders, Sent folder, From, signature, priority
 * rules, language) comes from its registry entry (`mailboxes.get(id).entry`).
 */
export interface MailSettings {
  maxMessageBytes: number;
  pollBatchSize: number;
  importHistory: boolean;
  backlogLimit: number;
  /**
   * Intakes (fetch, parse, index) at once in this worker (WORKER_CONCURRENCY_MAIL_IO). On the
   * mail-io queue the worker's slots bound them already; in a workflow task only this does.
   */
  intakeSlots?: number;
  /** Our own addresses include every mailbox's From address: mail between them is a loop. */
  triage: TriageSettings;
  /** REPLY_LIMIT_PER_HOUR: machine drafts to one address per hour; 0 or absent: no limit. */
  replyLimitPerHour?: number;
  /** THREAD_JOIN_ORGANISATION: a colleague of a thread's participants may join it. */
  threadJoinOrganisation?: boolean;
  /** The intent detector's set and threshold (config.guard); without it the shipped set and default. */
  injectionGuard?: IntentDetectorSettings;
  /** LLM_CONTEXT_CHARS: retrieved context a draft's prompt carries; absent: DEFAULT_CONTEXT_CHARS. */
  contextChars?: number;
  /** LLM_SUMMARY_TIMEOUT_MS: a case summary's model time; absent: SUMMARY_LLM_TIMEOUT_MS. */
  summaryTimeoutMs?: number;
  /** The installation's categories (CATEGORIES_FILE); without it the shipped list. */
  categories?: Category[];
  /** DRAFT_EXAMPLES, DRAFT_EXAMPLE_CHARS: approved replies as examples in a model's prompt; absent: none. */
  draftExamples?: DraftExampleSettings;
}

/** What the case deadline activities need besides the audit log and the mailboxes (src/cases/case-deadline.activities.ts). */
export interface CaseDeadlinePorts {
  clock: CaseClock;
  /** Each mailbox's business calendar, its holidays files read at start. */
  calendars: BusinessCalendars;
  notifiers: EscalationNotifiers;
  /** The clock; tests pass their own. */
  now?: () => Date;
}

export interface ActivityDeps {
  /** Every registered mailbox with its IMAP and SMTP adapters: any worker serves any mailbox. */
  mailboxes: MailboxDirectory;
  /** When each mailbox's folders were last polled, and why not. */
  health: MailboxHealth;
  messages: MessageStore;
  audit: AuditLog;
  drafts: DraftStore;
  /** The factual sentences of each draft and what the grounding check found; absent: kept only as the draft's flag. */
  draftClaims?: DraftClaimStore;
  sends: SendLedger;
  bounces: BounceLedger;
  watermarks: WatermarkStore;
  index: VectorIndex;
  /** Vectors for passages and queries (EMBEDDER); undefined when off: retrieval by words only. */
  embedder?: Embedder;
  drafter: Drafter;
  /** The team's guidance for drafts (src/guidance/); absent: drafts are written without any. */
  guidance?: GuidanceSource;
  /** Approved replies of a mailbox and category, masked, as examples for drafts; absent: drafts get none. */
  approvedExamples?: ApprovedExamples;
  starter: WorkflowStarter;
  inspector: WorkflowInspector;
  signals: WorkflowSignals;
  jobs: JobLedger;
  settings: MailSettings;
  /** Push intake (IMAP IDLE watchers); absent: a worker that watches nothing. */
  idle?: IdleDeps;
  /** Cases (a correspondent's open work); absent: every email stands alone, as before cases. */
  case?: CaseDeps;
  /** Routing of cases (ROUTING_FILE); absent with cases off. */
  caseRouting?: CaseRoutingDeps;
  /** Settles the mails a sent case reply answered. */
  caseReplies?: CaseReplySettler;
  /** A case's handover summary (read the mails, store the summary); absent when cases are off. */
  caseSummaries?: CaseSummaryStore;
  /** Attachments with their content and extracted text; absent: attachments are names only, as before. */
  attachments?: AttachmentStore;
  /** The attachment reader of the index step (a worker thread with limits); absent: nothing is read. */
  attachmentText?: AttachmentTextReader;
  /** The knowledge folder (KNOWLEDGE_DIR), when configured: brought in line on the re-index sync. */
  knowledge?: { sync(): Promise<{ added: string[]; updated: string[]; removed: string[]; unchanged: number } | null> };
  /**
   * What an email's steps do for its case (route, judge, plan, wake the clock); built by
   * createActivities from the case activities, not by the wiring. Absent with cases off.
   */
  caseDesk?: CaseDesk;
  /** Case deadlines (planning, reminder, escalation); absent: a worker that runs no case workflows. */
  caseDeadlines?: CaseDeadlinePorts;
  /** Earned autonomy (AUTONOMY_FILE, the switch); absent: every draft waits for a person. */
  autonomy?: { store: AutonomyStore; approver: AutoApprover; policy: AutonomyPolicy | null };
  /** The spam filter intake asks about every message (TRIAGE_SPAMD); absent: headers and the built-in check only. */
  spamScorer?: SpamScorer;
  /** The retention purge (RETENTION_*); absent: purgeExpired purges nothing. */
  retention?: RetentionDeps;
  /** Replays of a team's history (src/replay/); absent: this worker drafts no replay. */
  replay?: ReplayDeps;
}
