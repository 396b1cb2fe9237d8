import type { EmailWorkflowInput } from './email-input';
import type { Priority } from '../triage';
import type { WorkflowDisplay } from '../platform/workflow-summary';

/** Starts one EmailWorkflow per email; starting an id that exists already is a no-op. */
export interface WorkflowStarter {
  /**
   * `display` is what the Web UI shows for the workflow (summary: subject and sender; details:
   * mailbox, priority, thread). It goes through the data converter like every payload.
   */
  startEmail(input: EmailWorkflowInput, priority: Priority, display?: WorkflowDisplay): Promise<'started' | 'exists'>;
}

/** Nudges a waiting email workflow; false when it no longer runs. */
export interface WorkflowSignals {
  requestResend(workflowId: string, by: string): Promise<boolean>;
  /** Asks a workflow waiting for approval for a new draft (its current one is stale). */
  requestRedraft(workflowId: string, by: string): Promise<boolean>;
  /** Tells a waiting email workflow that a person answered its mail outside the assistant. */
  answeredElsewhere(workflowId: string, answer: AnsweredElsewhereNote): Promise<boolean>;
}

/** What the `answeredElsewhere` signal carries: enough for the refusal a later approval gets. */
export interface AnsweredElsewhereNote {
  messageId: string;
  /** The address that answered. */
  by: string;
  /** When the answer was written (its Date header). */
  at: string;
}
