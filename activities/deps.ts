import type { PriorityRule } from '../lib/priority-rules';
import type { TriageSettings } from '../lib/triage';
import type { BounceLedger } from '../ports/bounce-ledger';
import type { Drafter } from '../ports/drafter';
import type { MailSender } from '../ports/mail-sender';
import type { Mailbox } from '../ports/mailbox';
import type { AuditLog, DraftStore, JobLedger, MessageStore, SendLedger, WatermarkStore } from '../ports/store';
import type { VectorIndex } from '../ports/vector-index';
import type { WorkflowInspector } from '../ports/workflow-inspector';
import type { WorkflowSignals, WorkflowStarter } from '../ports/workflow-starter';

/** Mailbox-level settings the activities need; taken from the validated config. */
export interface MailSettings {
  /** Names the IMAP account in workflow ids and watermarks. */
  account: string;
  mailbox: string;
  sentMailbox: string;
  maxMessageBytes: number;
  pollBatchSize: number;
  importHistory: boolean;
  backlogLimit: number;
  priorityRules: PriorityRule[];
  triage: TriageSettings;
  from: { name: string; address: string };
  /** THREAD_JOIN_ORGANISATION: a colleague of a thread's participants may join it. */
  threadJoinOrganisation?: boolean;
}

export interface ActivityDeps {
  mailbox: Mailbox;
  messages: MessageStore;
  audit: AuditLog;
  drafts: DraftStore;
  sends: SendLedger;
  bounces: BounceLedger;
  watermarks: WatermarkStore;
  index: VectorIndex;
  drafter: Drafter;
  sender: MailSender;
  starter: WorkflowStarter;
  inspector: WorkflowInspector;
  signals: WorkflowSignals;
  jobs: JobLedger;
  settings: MailSettings;
  /** The knowledge folder (KNOWLEDGE_DIR), when configured: brought in line on the re-index sync. */
  knowledge?: { sync(): Promise<{ added: string[]; updated: string[]; removed: string[]; unchanged: number } | null> };
}
