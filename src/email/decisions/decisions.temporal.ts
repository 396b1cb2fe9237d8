/**
 * A person's decisions as the email workflow's Updates, bound to the draft id the person saw. The
 * workflow's validator is the only judge: a refusal comes back as its message, nothing is written
 * to the database here.
 *
 * The draft step stores the draft and its status itself; the workflow takes the draft in with its
 * next workflow task, which under load can come seconds later. A person who decides on a draft in
 * that moment would be refused ("waits for no decision") for a draft they can see. So a refusal
 * while the workflow is still writing a draft waits for it to catch up (at most `catchUpMs`) and,
 * when it then waits for exactly the draft named, asks once more: the validator judges again.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { DRAFT_IN_MAKING_STATUSES } from '../email-status';
import { errorMessage } from '../../platform/errors';
import {
  type CoverInput,
  type DecisionInput,
  type DecisionResult,
  type EmailWorkflowState,
  approveUpdate,
  coverByCaseReplyUpdate,
  markSentUpdate,
  redraftUpdate,
  rejectUpdate,
  resendUpdate,
  stateQuery,
} from '../email.workflow';
import { answeredElsewhereText } from './decision-rules.workflow';

export type DecisionOutcome = { ok: true; result: DecisionResult } | { ok: false; refused: boolean; message: string };

const UPDATES = {
  approve: approveUpdate,
  reject: rejectUpdate,
  redraft: redraftUpdate,
  resend: resendUpdate,
  markSent: markSentUpdate,
} as const;

export function createTemporalDecisions(client: Pick<Client, 'workflow'>, options: { catchUpMs?: number } = {}) {
  const catchUpMs = options.catchUpMs ?? 15_000;

  /** The workflow's own view (status, current draft, what it waits for); null when there is no such run. */
  const state = async (workflowId: string): Promise<EmailWorkflowState | null> => {
    try {
      return await client.workflow.getHandle(workflowId).query(stateQuery);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
  };

  const attempt = async <N extends keyof DecisionInput>(workflowId: string, name: N, input: DecisionInput[N]): Promise<DecisionOutcome> => {
    try {
      const update = UPDATES[name] as unknown as typeof approveUpdate;
      const result = await client.workflow.getHandle(workflowId).executeUpdate(update, { args: [input as DecisionInput['approve']] });
      return { ok: true, result };
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) return { ok: false, refused: true, message: errorMessage(err.cause ?? err) };
      if (err instanceof WorkflowNotFoundError) return { ok: false, refused: true, message: await ended(workflowId, name) };
      return { ok: false, refused: false, message: `${name} on ${workflowId} failed: ${errorMessage(err)}` };
    }
  };

  /** Why a decision found no running workflow: a person's outside answer is named (who, when), else the plain fact. */
  const ended = async (workflowId: string, name: string): Promise<string> => {
    const s = await state(workflowId).catch(() => null);
    if (s?.answeredElsewhere)
      return `${name} refused: ${answeredElsewhereText(s.answeredElsewhere)}; the draft was withdrawn and nothing is sent`;
    // A second decision after the first ended the run (a spam mark, a reject): say which one.
    if (s?.decision?.spam) return `${name} refused: the email was marked as spam by ${s.decision.by} and is ${s.status}`;
    if (s?.decision) return `${name} refused: the email is ${s.status} (${s.decision.kind} by ${s.decision.by})`;
    return `no running workflow ${workflowId}`;
  };

  /** True once the workflow waits for a decision on `draftId`; false when it will not (or not in time). */
  const caughtUp = async (workflowId: string, draftId: string): Promise<boolean> => {
    const deadline = Date.now() + catchUpMs;
    for (;;) {
      const s = await state(workflowId);
      if (!s) return false;
      if (s.waitingFor) return s.waitingFor.draftId === draftId;
      if (!DRAFT_IN_MAKING_STATUSES.includes(s.status) || Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  return {
    state,

    /** Holds an email of a case for the case reply its lead sends (bound to the draft id the person saw). */
    async cover(workflowId: string, input: CoverInput): Promise<DecisionOutcome> {
      try {
        const result = await client.workflow.getHandle(workflowId).executeUpdate(coverByCaseReplyUpdate, { args: [input] });
        return { ok: true, result };
      } catch (err) {
        if (err instanceof WorkflowUpdateFailedError) return { ok: false, refused: true, message: errorMessage(err.cause ?? err) };
        if (err instanceof WorkflowNotFoundError) return { ok: false, refused: true, message: `no running workflow ${workflowId}` };
        return { ok: false, refused: false, message: `coverByCaseReply on ${workflowId} failed: ${errorMessage(err)}` };
      }
    },

    async decide<N extends keyof DecisionInput>(workflowId: string, name: N, input: DecisionInput[N]): Promise<DecisionOutcome> {
      const first = await attempt(workflowId, name, input);
      if (first.ok || !first.refused) return first;
      const draftId = (input as { draftId?: unknown }).draftId;
      if (typeof draftId !== 'string' || !(await caughtUp(workflowId, draftId))) return first;
      return attempt(workflowId, name, input);
    },
  };
}
export type TemporalDecisions = ReturnType<typeof createTemporalDecisions>;
