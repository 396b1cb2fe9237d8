import { ApplicationFailure, condition, log, setHandler, type proxyLocalActivities } from '@temporalio/workflow';
import type { EmailActivities } from '../email-activities';
import { DECISIONS, type DecisionName } from '../email.contract';
import { FAILURE_TYPES } from '../../platform/contract';
import {
  answeredElsewhereText,
  approvedTextRefusal,
  coverRefusal,
  decisionRefusal,
  marksSpam,
  type DecisionContext,
  type DecisionResult,
} from './decision-rules.workflow';
import {
  answeredElsewhereSignal,
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
/** What of the email's run the queue reads and writes. */
export interface DecisionQueueRun {
  emailId: string;
  state: EmailWorkflowState;
  maxDrafts: number;
  book: ReturnType<typeof proxyLocalActivities<EmailActivities>>;
  isSending(): boolean;
}

export function createDecisionQueue(run: DecisionQueueRun) {
  const { emailId, state } = run;
  const queue: PendingDecision[] = [];
  const refusedSignals: Refusal[] = [];
  const decisions = {
    queue,
    maxDrafts: run.maxDrafts,
    /** The decision taken on the current draft (first one wins); reset for each new draft. */
    decided: null as string | null,
    /** A genuine follow-up arrived in the thread: the waiting draft is stale. */
    threadUpdated: false,
    /** The case reply that answers this email was sent (by its lead email). */
    caseReply: null as CaseReplySent | null,
    /** A person answered the mail outside the assistant: the run stands down where it waits. */
    answeredElsewhere: false,
    /** Refused signals get an audit row in the background of the main flow. */
    async flushRefusals(): Promise<void> {
      while (refusedSignals.length > 0) {
        const r = refusedSignals.shift() as Refusal;
        await run.book.recordRefusal({ emailId, decision: r.decision, by: r.by, reason: r.reason, at: r.at });
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
    redraftAllowed: state.drafts < run.maxDrafts,
    answeredElsewhere: state.answeredElsewhere ? answeredElsewhereText(state.answeredElsewhere) : null,
  });
  /** Marks what an accepted decision takes, so a second one in the same breath is refused. */
  const claim = (decision: DecisionName, i: Record<string, unknown>) => {
    if (marksSpam(decision, i)) decisions.decided = `marked as spam by ${String(i.by)}`;
    else if (decision === 'approve' || decision === 'reject' || decision === 'redraft')
      decisions.decided = `${decision} by ${String(i.by)}`;
    // A send decision is one-shot: nothing else may be queued behind it (a second force would outlive its moment).
    else state.waitingFor = null;
  };
  const refuseSignal = (decision: DecisionName, i: unknown, refusal: string): void => {
    const by = typeof (i as { by?: unknown })?.by === 'string' ? (i as { by: string }).by.slice(0, 191) : 'unknown';
    const r: Refusal = { at: new Date().toISOString(), decision, by, reason: refusal };
    state.refusals.push(r);
    refusedSignals.push(r);
    log.warn('decision signal refused', { emailId, decision, reason: refusal });
  };
  for (const decision of Object.values(DECISIONS)) registerDecision(decision, { queue, context, claim, refuseSignal });
  setHandler(threadUpdatedSignal, () => {
    if (run.isSending()) return;
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
  setHandler(answeredElsewhereSignal, (note) => {
    // The first answer counts; a send already handed over is the ledger's (the send step looks again before it sends).
    if (state.answeredElsewhere || typeof note?.messageId !== 'string') return;
    state.answeredElsewhere = { messageId: note.messageId, by: String(note.by ?? ''), at: String(note.at ?? '') };
    decisions.answeredElsewhere = true;
  });
  setHandler(caseReplySentSignal, (s) => {
    decisions.caseReply = s;
  });
  setHandler(draftQuery, () => state.draft);
  setHandler(stateQuery, () => state);
  return decisions;
}

/** The Update and the same-named signal of one decision: the same rules, the same queue. */
function registerDecision(
  decision: DecisionName,
  h: {
    queue: PendingDecision[];
    context(): DecisionContext;
    claim(decision: DecisionName, i: Record<string, unknown>): void;
    refuseSignal(decision: DecisionName, i: unknown, refusal: string): void;
  },
): void {
  setHandler(
    UPDATES[decision],
    async (i: unknown) => {
      const raw = i as Record<string, unknown>;
      h.claim(decision, raw);
      return new Promise<DecisionResult>((resolve) => h.queue.push({ name: decision, input: raw, resolve }));
    },
    {
      validator: (i: unknown) => {
        const refusal = decisionRefusal(decision, i, h.context()) ?? approvedTextRefusal(decision, i);
        if (refusal) throw ApplicationFailure.nonRetryable(refusal, FAILURE_TYPES.decisionRefused);
      },
    },
  );
  setHandler(SIGNALS[decision], (i: unknown) => {
    const refusal = decisionRefusal(decision, i, h.context());
    if (refusal) return h.refuseSignal(decision, i, refusal);
    h.claim(decision, i as Record<string, unknown>);
    h.queue.push({ name: decision, input: i as Record<string, unknown> });
  });
}
