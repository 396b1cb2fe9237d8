import { DECISIONS, SYSTEM_SIGNALS } from './email.contract';
import { FAILURE_TYPES, WORKFLOW_TYPES } from '../platform/contract';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType, WorkflowIdReusePolicy } from '@temporalio/common';
import { priorityKey, type Priority } from '../triage';
import { folderOf, type EmailWorkflowInput } from './email-input';
import { TransientError } from '../platform/errors';
import type { WorkflowDisplay } from '../platform/workflow-summary';
import type { WorkflowSignals, WorkflowStarter } from './workflow-starter.port';

// Known at start (types as in the contract's SEARCH_ATTRIBUTES): set with the start request, so
// the workflow need not upsert them, one history event and visibility write less per email.
const EMAIL_PRIORITY = defineSearchAttributeKey('EmailPriority', SearchAttributeType.KEYWORD);
const MAILBOX = defineSearchAttributeKey('Mailbox', SearchAttributeType.KEYWORD);

/**
 * The starter's settings from the config: a fleet-wide mail-io rate is enforced by the server on
 * the mail-io queue only, so with one configured the intake stays there instead of running in
 * the workflow task.
 */
export function starterLimits(config: { maxDrafts?: number; llm?: { timeoutMs: number }; worker: { ratePerSecond: { mailIo: number } } }): {
  maxDrafts?: number;
  llmTimeoutMs?: number;
  intakeOnQueue: boolean;
} {
  return {
    ...(config.maxDrafts !== undefined ? { maxDrafts: config.maxDrafts } : {}),
    // The workflow cannot read the configuration: the model's time reaches the draft step's timeout with the input.
    ...(config.llm ? { llmTimeoutMs: config.llm.timeoutMs } : {}),
    intakeOnQueue: config.worker.ratePerSecond.mailIo > 0,
  };
}

/**
 * Starts EmailWorkflows. REJECT_DUPLICATE makes the workflow id the guard against processing a
 * message twice, even after the first run finished.
 */
export function createTemporalStarter(
  client: Client,
  taskQueue: string,
  limits: { maxDrafts?: number; llmTimeoutMs?: number; eager?: boolean; intakeOnQueue?: boolean } = {},
): WorkflowStarter {
  return {
    async startEmail(input: EmailWorkflowInput, priority: Priority, display?: WorkflowDisplay): Promise<'started' | 'exists'> {
      try {
        await client.workflow.start(WORKFLOW_TYPES.email, {
          taskQueue,
          workflowId: input.emailId,
          args: [
            {
              ...(limits.maxDrafts !== undefined ? { maxDrafts: limits.maxDrafts } : {}),
              ...(limits.llmTimeoutMs !== undefined ? { llmTimeoutMs: limits.llmTimeoutMs } : {}),
              ...(limits.intakeOnQueue ? { intake: 'queue' as const } : {}),
              ...input,
            },
          ],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          // Only for a client on a worker's native connection (the worker's poll): the new run's
          // first workflow task comes back with the start response, no dispatch round trip.
          ...(limits.eager ? { requestEagerStart: true } : {}),
          priority: { priorityKey: priorityKey(priority) },
          typedSearchAttributes: [
            { key: EMAIL_PRIORITY, value: priority },
            { key: MAILBOX, value: input.source.mailboxId ?? (input.source.kind === 'imap' ? folderOf(input.source) : 'file') },
          ],
          ...(display ? { staticSummary: display.summary, staticDetails: display.details } : {}),
        });
        return 'started';
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return 'exists';
        throw new TransientError(
          `Temporal did not accept workflow ${input.emailId}: ${(err as Error).message}`,
          FAILURE_TYPES.temporalUnavailable,
          {
            cause: err,
          },
        );
      }
    },
  };
}

export function createTemporalSignals(client: Client): WorkflowSignals {
  // By name: adapters must not import workflow code.
  const signal = async (workflowId: string, name: string, by: string, payload: object = { by }): Promise<boolean> => {
    try {
      await client.workflow.getHandle(workflowId).signal(name, payload);
      return true;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw new TransientError(
        `Temporal did not take the ${name} signal for ${workflowId}: ${(err as Error).message}`,
        FAILURE_TYPES.temporalUnavailable,
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
    answeredElsewhere: (workflowId, answer) => signal(workflowId, SYSTEM_SIGNALS.answeredElsewhere, answer.by, answer),
  };
}
