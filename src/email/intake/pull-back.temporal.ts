/** How a pull-back starts the email workflow again: a Temporal client, the same workflow id. */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { WORKFLOW_TYPES } from '../../platform/contract';
import { priorityKey } from '../../triage';
import { errorMessage } from '../../platform/errors';
import { PullBackRefused, type PullBackDeps } from './pull-back';

export function temporalPullBackStart(client: Client, taskQueue: string): PullBackDeps['start'] {
  return async (input, display) => {
    try {
      await client.workflow.start(WORKFLOW_TYPES.email, {
        taskQueue,
        workflowId: input.emailId,
        args: [input],
        // The earlier run ended with `ignored`; polls keep REJECT_DUPLICATE, only a person re-runs it.
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        priority: { priorityKey: priorityKey(input.priority ?? 'normal') },
        staticSummary: display.summary,
        staticDetails: display.details,
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError)
        throw new PullBackRefused(`${input.emailId} is still being processed; try again when it has ended`);
      throw new PullBackRefused(`Temporal did not start ${input.emailId} again: ${errorMessage(err).split('\n')[0]}`);
    }
  };
}
