import { ApplicationFailure, condition, log, setHandler, type proxyLocalActivities } from '@temporalio/workflow';
import type { EmailActivities } from '../email-activities';
import { DECISIONS, type DecisionName } from '../email.contract';
import { FAILURE_TYPES } from '../../platform/contract';
import { coverRefusal, decisionRefusal, type DecisionContext, type DecisionResult } from './decision-rules.workflow';
import {
  approveSignal,
  approveUpdate,
  caseReplySentSignal,
  coverByCaseReplyUpdate,
  draftQuery,
  type CaseReplySent,
  markSentSignal,
  markSentUpdate,
  redraftSignal,
  redraftUpdate,
  rejectSignal,
  rejectUpdate,
  resendSignal,
  resendUpdate,
  stateQuery,
  threadUpdatedSignal,
} from '../email-definitions.workflow';
import type { EmailWorkflowState, Refusal } from '../email-state.workflow';

/** A decision accepted by the rules, waiting for the main flow; an Update's caller awaits `resolve`. */
export interface PendingDecision {
  /** `cover`: held for the case reply of another email of the case. */
  name: DecisionName | 'cover';
  input: Record<string, unknown>;
  resolve?: (r: DecisionResult) => void;
}

const UPDATES = { approve: approveUpdate, reject: rejectUpdate, redraft: redraftUpdate, resend: resendUpdate, markSent: markSentUpdate };
const SIGNALS = { approve: approveSignal, reject: rejectSignal, redraft: redraftSignal, resend: resendSignal, markSent: markSentSignal };

/**
 * Where a person's decisions (Updates and same-named signals) and the system's thread follow-ups
 * arrive. Every decision passes the same rules; accepted ones queue for the main flow, refused
 * signals are kept in the `state` query and audited while the flow waits (`next`).
 */
export function createDecisionQueue(deps: {
  emailId: string;
  state: EmailWorkflowState;
  maxDrafts: number;
  book: ReturnType<typeof proxyLocalActivities<EmailActivities>>;
  isSending(): boolean;
}) {
  const { emailId, state } = deps;
  const queue: PendingDecision[] = [];
  const refusedSignals: Refusal[] = [];
  const decisions = {
    queue,
    maxDrafts: deps.maxDrafts,
    /** The decision taken on the current draft (first one wins); reset for each new draft. */
    decided: null as string | null,
    /** A genuine follow-up arrived in the thread: the waiting draft is stale. */
    threadUpdated: false,
    /** The case reply that answers this email was sent (by its lead email). */
    caseReply: null as CaseReplySent | null,
    /** Refused signals get an audit row in the background of the main flow. */
    async flushRefusals(): Promise<void> {
      while (refusedSignals.length > 0) {
        const r = refusedSignals.shift() as Refusal;
        await deps.book.recordRefusal({ emailId, decision: r.decision, by: r.by, reason: r.reason, at: r.at });
      }
    },
    /** Waits for `pred` (or the timeout), auditing refused signals while it waits; false on timeout. */
    async next(pred: () => boolean, timeout?: string): Promise<boolean> {
      for (;;) {
        const woken = () => pred() || refusedSignals.length > 0;
        const ok = timeout ? await condition(woken, timeout) : (await condition(woken), true);
        if (refusedSignals.length > 0) {
          await decisions.flushRefusals();
          if (!pred()) continue;
        }
        return ok;
      }
    },
  };
  const context = () => ({
    waitingFor: state.waitingFor,
    decided: decisions.decided,
    status: state.status,
    redraftAllowed: state.drafts < deps.maxDrafts,
  });
  /** Marks what an accepted decision takes, so a second one in the same breath is refused. */
  const claim = (name: DecisionName, i: Record<string, unknown>) => {
    if (name === 'approve' || name === 'reject' || name === 'redraft') decisions.decided = `${name} by ${String(i.by)}`;
    // A send decision is one-shot: nothing else may be queued behind it (a second force would outlive its moment).
    else state.waitingFor = null;
  };
  const refuseSignal = (name: DecisionName, i: unknown, refusal: string): void => {
    const by = typeof (i as { by?: unknown })?.by === 'string' ? (i as { by: string }).by.slice(0, 191) : 'unknown';
    const r: Refusal = { at: new Date().toISOString(), decision: name, by, reason: refusal };
    state.refusals.push(r);
    refusedSignals.push(r);
    log.warn('decision signal refused', { emailId, decision: name, reason: refusal });
  };
  for (const name of Object.values(DECISIONS)) registerDecision(name, { queue, context, claim, refuseSignal });
  setHandler(threadUpdatedSignal, () => {
    if (deps.isSending()) return;
    // The waiting draft (or the one being written) is stale from this moment: no decision may
    // land on it, and the loop drafts again with the follow-up in its context.
    decisions.threadUpdated = true;
    state.waitingFor = null;
  });
  // One reply of the case answers this email too: held for it like an approval of this draft.
  setHandler(
    coverByCaseReplyUpdate,
    async (i) => {
      decisions.decided = `held for the case reply of ${i.leadEmailId} by ${i.by}`;
      return new Promise<DecisionResult>((resolve) =>
        queue.push({ name: 'cover', input: i as unknown as Record<string, unknown>, resolve }),
      );
    },
    {
      validator: (i: unknown) => {
        const refusal = coverRefusal(i, context());
        if (refusal) throw ApplicationFailure.nonRetryable(refusal, FAILURE_TYPES.decisionRefused);
      },
    },
  );
  setHandler(caseReplySentSignal, (s) => {
    decisions.caseReply = s;
  });
  setHandler(draftQuery, () => state.draft);
  setHandler(stateQuery, () => state);
  return decisions;
}

/** The Update and the same-named signal of one decision: the same rules, the same queue. */
function registerDecision(
  name: DecisionName,
  h: {
    queue: PendingDecision[];
    context(): DecisionContext;
    claim(name: DecisionName, i: Record<string, unknown>): void;
    refuseSignal(name: DecisionName, i: unknown, refusal: string): void;
  },
): void {
  setHandler(
    UPDATES[name],
    async (i: unknown) => {
      const raw = i as Record<string, unknown>;
      h.claim(name, raw);
      return new Promise<DecisionResult>((resolve) => h.queue.push({ name, input: raw, resolve }));
    },
    {
      validator: (i: unknown) => {
        const refusal = decisionRefusal(name, i, h.context());
        if (refusal) throw ApplicationFailure.nonRetryable(refusal, FAILURE_TYPES.decisionRefused);
      },
    },
  );
  setHandler(SIGNALS[name], (i: unknown) => {
    const refusal = decisionRefusal(name, i, h.context());
    if (refusal) return h.refuseSignal(name, i, refusal);
    h.claim(name, i as Record<string, unknown>);
    h.queue.push({ name, input: i as Record<string, unknown> });
  });
}
