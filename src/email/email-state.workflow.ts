/** What the email workflow shows through its `state` query and returns at its end. */
import type { DraftView } from './email-activities';
import type { DecisionName } from './email.contract';
import type { EmailStatus, WorkflowStatus } from './email-status';
import type { WaitingFor } from './decisions/decision-rules.workflow';
import type { AnsweredElsewhereNote } from './workflow-starter.port';

export interface Refusal {
  at: string;
  decision: DecisionName;
  by: string;
  reason: string;
}

export interface EmailWorkflowState {
  status: WorkflowStatus;
  draft: DraftView | null;
  /** What a decision must name now; null while the pipeline works. */
  waitingFor: WaitingFor | null;
  /** `spam`: the reject marked the mail as spam. */
  decision: { kind: 'approve' | 'reject'; by: string; draftId: string; spam?: true } | null;
  drafts: number;
  sendRounds: number;
  lastError: string | null;
  /** Signals that were refused (Updates are answered directly). */
  refusals: Refusal[];
  /** A person answered the mail outside the assistant: who, when, which message (absent until then). */
  answeredElsewhere?: AnsweredElsewhereNote;
}

export interface EmailWorkflowResult {
  status: EmailStatus;
  messageId?: string;
}
