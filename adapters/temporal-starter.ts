import { DECISIONS, SYSTEM_SIGNALS, WORKFLOW_TYPES } from '../lib/contract';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { priorityKey, type EmailWorkflowInput, type Priority } from '../lib/domain';
import { TransientError } from '../lib/errors';
import type { WorkflowDisplay } from '../lib/workflow-summary';
import type { WorkflowSignals, WorkflowStarter } from '../ports/workflow-starter';

/**
 * Starts EmailWorkflows. REJECT_DUPLICATE makes the workflow id the guard against processing a
 * message twice, even after the first run finished.
 */
export function createTemporalStarter(client: Client, taskQueue: string): WorkflowStarter {
  return {
    async startEmail(input: EmailWorkflowInput, priority: Priority, display?: WorkflowDisplay): Promise<'started' | 'exists'> {
      const start = (shown: WorkflowDisplay | undefined) =>
        client.workflow.start(WORKFLOW_TYPES.email, {
          taskQueue,
          workflowId: input.emailId,
          args: [input],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          priority: { priorityKey: priorityKey(priority) },
          ...(shown ? { staticSummary: shown.summary, staticDetails: shown.details } : {}),
        });
      try {
        try {
          await start(display);
        } catch (err) {
          // A server with tighter metadata limits (or a codec that grows payloads) must not stop intake.
          if (!display || !isMetadataRefusal(err)) throw err;
          await start(undefined);
        }
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

/** The server refused the start because of its summary or details (size limits), not the workflow itself. */
function isMetadataRefusal(err: unknown): boolean {
  const e = err as { code?: number; details?: string; message?: string; cause?: { code?: number; details?: string } };
  const invalidArgument = 3;
  const code = e.code ?? e.cause?.code;
  return (
    code === invalidArgument && /user_?metadata|summary|details/i.test(`${e.details ?? ''} ${e.message ?? ''} ${e.cause?.details ?? ''}`)
  );
}

export function createTemporalSignals(client: Client): WorkflowSignals {
  // By name: adapters must not import workflow code.
  const signal = async (workflowId: string, name: string, by: string): Promise<boolean> => {
    try {
      await client.workflow.getHandle(workflowId).signal(name, { by });
      return true;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw new TransientError(
        `Temporal did not take the ${name} signal for ${workflowId}: ${(err as Error).message}`,
        'TEMPORAL_UNAVAILABLE',
        {
          cause: err,
        },
      );
    }
  };
  return {
    requestResend: (workflowId, by) => signal(workflowId, DECISIONS.resend, by),
    // Not a person's decision: the thread got a genuine follow-up, so the waiting draft is stale.
    requestRedraft: (workflowId, by) => signal(workflowId, SYSTEM_SIGNALS.threadUpdated, by),
  };
}
