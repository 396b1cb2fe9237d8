import type { EmailWorkflowInput, Priority } from '../lib/domain';

/** Starts one EmailWorkflow per email; starting an id that exists already is a no-op. */
export interface WorkflowStarter {
  startEmail(input: EmailWorkflowInput, priority: Priority): Promise<'started' | 'exists'>;
}
