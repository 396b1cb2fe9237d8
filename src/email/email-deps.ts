/**
 * What the email's activities need: its own stores, and the ports of the features it uses
 * (mailboxes, retrieval, drafting, guidance, attachments, triage) and of its case. The activity
 * registry (activities/index.ts) composes this with the other features' dependencies; every email
 * activity takes the part it uses (`Pick<EmailDeps, …>`).
 */
import type { Category, IntentDetectorSettings, Drafter, DraftClaimStore, ApprovedExamples, DraftExampleSettings } from '../drafting';
import type { TriageSettings, SpamScorer, SpamLearner, KnownSenders } from '../triage';
import type { AttachmentStore, AttachmentTextReader } from '../attachments';
import type { BounceLedger } from './intake/bounce-ledger.port';
import type { GuidanceSource } from '../guidance';
import type { Embedder, VectorIndex } from '../retrieval';
import type { MailboxDirectory, MailboxHealth, WatermarkStore } from '../mailboxes';
import type { AuditLog } from '../platform/store.port';
import type { DraftStore, MessageStore, SendLedger } from './email-stores.port';
import type { JobLedger } from '../platform/job-queue';
import type { WorkflowSignals, WorkflowStarter } from './workflow-starter.port';
import type { EmailCase } from './email-case.port';
import type { OutsideReplyStore } from './answered-elsewhere/outside-replies.port';
import type { DraftMeasure } from './answered-elsewhere/draft-measure.port';

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

/** The knowledge folder's sync (KNOWLEDGE_DIR), run with the re-index. */
export interface KnowledgeSync {
  sync(): Promise<{ added: string[]; updated: string[]; removed: string[]; unchanged: number } | null>;
}

export interface EmailDeps {
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
  signals: WorkflowSignals;
  jobs: JobLedger;
  settings: MailSettings;
  /** Attachments with their content and extracted text; absent: attachments are names only, as before. */
  attachments?: AttachmentStore;
  /** The attachment reader of the index step (a worker thread with limits); absent: nothing is read. */
  attachmentText?: AttachmentTextReader;
  /** The knowledge folder (KNOWLEDGE_DIR), when configured: brought in line on the re-index sync. */
  knowledge?: KnowledgeSync;
  /** The spam filter intake asks about every message (TRIAGE_SPAMD); absent: headers and the built-in check only. */
  spamScorer?: SpamScorer;
  /** The same filter's Bayes learning (TRIAGE_SPAMD_LEARN): a person's release of held spam teaches it ham; absent: nothing learns. */
  spamLearner?: SpamLearner;
  /** Who wrote before or was answered: their mail is never held by a spam score alone; absent: nobody is known. */
  knownSenders?: KnownSenders;
  /**
   * What the email's steps ask of its case (join it, read its other mails, tell it of a status);
   * the cases feature provides it (activities/index.ts). Absent: every email stands alone.
   */
  emailCase?: EmailCase;
  /** Replies people sent beside the assistant and the mails they answered; absent: nobody answers but the assistant. */
  outsideReplies?: OutsideReplyStore;
  /** Measures a draft a person answered instead of (shadow evidence, src/shadow/); absent: not measured. */
  draftMeasure?: DraftMeasure;
}
