/**
 * A person's decisions as the email workflow's Updates, bound to the draft id the person saw. The
 * workflow's validator is the only judge: a refusal comes back as its message, nothing is written
 * to the database here.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { errorMessage } from '../lib/errors';
import type { DecisionInput, DecisionResult, EmailWorkflowState } from '../workflows/email-workflow';
import { approveUpdate, markSentUpdate, redraftUpdate, rejectUpdate, resendUpdate, stateQuery } from '../workflows/email-workflow';

export type DecisionOutcome = { ok: true; result: DecisionResult } | { ok: false; refused: boolean; message: string };

const UPDATES = {
  approve: approveUpdate,
  reject: rejectUpdate,
  redraft: redraftUpdate,
  resend: resendUpdate,
  markSent: markSentUpdate,
} as const;

export function createTemporalDecisions(client: Client) {
  return {
    /** The workflow's own view (status, current draft, what it waits for); null when there is no such run. */
    async state(workflowId: string): Promise<EmailWorkflowState | null> {
      try {
        return await client.workflow.getHandle(workflowId).query(stateQuery);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return null;
        throw err;
      }
    },

    async decide<N extends keyof DecisionInput>(workflowId: string, name: N, input: DecisionInput[N]): Promise<DecisionOutcome> {
      try {
        const update = UPDATES[name] as unknown as typeof approveUpdate;
        const result = await client.workflow.getHandle(workflowId).executeUpdate(update, { args: [input as DecisionInput['approve']] });
        return { ok: true, result };
      } catch (err) {
        if (err instanceof WorkflowUpdateFailedError) return { ok: false, refused: true, message: errorMessage(err.cause ?? err) };
        if (err instanceof WorkflowNotFoundError) return { ok: false, refused: true, message: `no running workflow ${workflowId}` };
        return { ok: false, refused: false, message: `${name} on ${workflowId} failed: ${errorMessage(err)}` };
      }
    },
  };
}
export type TemporalDecisions = ReturnType<typeof createTemporalDecisions>;
