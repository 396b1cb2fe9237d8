import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { priorityKey, type EmailWorkflowInput, type Priority } from '../lib/domain';
import { TransientError } from '../lib/errors';
import type { WorkflowStarter } from '../ports/workflow-starter';

/**
 * Starts EmailWorkflows. REJECT_DUPLICATE makes the workflow id the guard against processing a
 * message twice, even after the first run finished.
 */
export function createTemporalStarter(client: Client, taskQueue: string): WorkflowStarter {
  return {
    async startEmail(input: EmailWorkflowInput, priority: Priority): Promise<'started' | 'exists'> {
      try {
        await client.workflow.start('EmailWorkflow', {
          taskQueue,
          workflowId: input.emailId,
          args: [input],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          priority: { priorityKey: priorityKey(priority) },
        });
        return 'started';
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return 'exists';
        throw new TransientError(`Temporal did not accept workflow ${input.emailId}: ${(err as Error).message}`, 'TEMPORAL_UNAVAILABLE', {
          cause: err,
        });
      }
    },
  };
}
