import type { EmailWorkflowInput, Priority } from '../lib/domain';

/** Starts one EmailWorkflow per email; starting an id that exists already is a no-op. */
export interface WorkflowStarter {
  startEmail(input: EmailWorkflowInput, priority: Priority): Promise<'started' | 'exists'>;
}

/** Nudges a waiting email workflow; false when it no longer runs. */
export interface WorkflowSignals {
  requestResend(workflowId: string, by: string): Promise<boolean>;
  /** Asks a workflow waiting for approval for a new draft (its current one is stale). */
  requestRedraft(workflowId: string, by: string): Promise<boolean>;
}
