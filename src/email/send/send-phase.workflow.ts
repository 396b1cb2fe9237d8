/**
 * Send: the approved reply goes out over SMTP exactly once. The send ledger (one row per draft)
 * tells an attempt that failed before the final dot (safe to retry) from one in doubt after it.
 */
import { workflowInfo } from '@temporalio/workflow';
import { sentTransition } from '../status-transitions';
import { FAILURE_TYPES } from '../../platform/contract';
import { WAITING_KINDS, STATUS } from '../email-status';
import type { EmailRun } from '../email-run.workflow';
import type { EmailWorkflowResult } from '../email-state.workflow';
import { errorClassOf, failureText, failureTypeOf } from '../../platform/failures.workflow';
import { EMAIL_AUDIT_EVENTS } from '../email.contract';
import { standDown } from '../answered-elsewhere/stand-down.workflow';

/** How long an approved reply waits after its send attempts ran out before trying again. */
const RESEND_AFTER = '1 hour';
const MAX_SEND_ROUNDS = 24;

/**
 * SMTP: 3 attempts per round; between rounds the draft stays approved and waits for the timer or a
 * `resend`. A send in doubt (the message may have been handed over) waits for a person: `resend`
 * with force (one more attempt, once) or `markSent` (they checked it arrived).
 */
export async function runSendPhase(run: EmailRun, draftId: string): Promise<EmailWorkflowResult> {
  const { emailId, state } = run;
  run.startSending();
  // What a person decided after a send in doubt: with force, one more attempt, once.
  let decided: { force?: { by: string; key: string } } = {};
  for (;;) {
    state.sendRounds += 1;
    try {
      const sent = await run
        .act('send')
        .sendReply({ emailId, draftId, record: run.reserve(), ...(decided.force ? { force: decided.force } : {}) });
      await run.reached(sent.recorded, sentTransition(sent));
      return { status: STATUS.sent, messageId: sent.messageId };
    } catch (err) {
      decided = {};
      // The send step's last look found a person's own answer: nothing is sent.
      if (failureTypeOf(err) === FAILURE_TYPES.answeredElsewhere) return standDown(run);
      state.lastError = failureText(err);
      if (failureTypeOf(err) === FAILURE_TYPES.sendInDoubt) {
        const result = await waitInDoubt(run, draftId);
        if ('status' in result) return result;
        decided = result;
        continue;
      }
      if (errorClassOf(err) === 'permanent') return run.stop(STATUS.failed, EMAIL_AUDIT_EVENTS.sendFailed, err);
      await run.record(STATUS.approved, `send round ${state.sendRounds} failed; the approved reply is sent again later`, {
        eventType: EMAIL_AUDIT_EVENTS.sendGaveUp,
        errorClass: 'transient',
        message: `send round ${state.sendRounds} failed: ${state.lastError}; the approved reply is sent again later`,
      });
      if (state.sendRounds >= MAX_SEND_ROUNDS) return run.stop(STATUS.failed, EMAIL_AUDIT_EVENTS.sendFailed, err);
      await waitForNextRound(run, draftId);
    }
  }
}

/** Only a person may decide after a send in doubt: `markSent` ends the run, `resend` with force allows one more attempt. */
async function waitInDoubt(run: EmailRun, draftId: string): Promise<EmailWorkflowResult | { force: { by: string; key: string } }> {
  const { emailId, state, decisions } = run;
  const since = new Date().toISOString();
  state.waitingFor = { kind: WAITING_KINDS.sendInDoubt, draftId, since };
  await run.record(STATUS.approved, `send of draft ${draftId} in doubt since ${since}: a person checks the SMTP log and decides`, {
    eventType: EMAIL_AUDIT_EVENTS.sendWaitsForOperator,
    errorClass: 'unclear',
    message: state.lastError ?? 'send in doubt',
  });
  await decisions.next(() => decisions.queue.length > 0);
  const p = decisions.queue.shift()!;
  const by = String(p.input.by);
  state.waitingFor = null;
  if (p.name === 'markSent') {
    const note = typeof p.input.note === 'string' ? p.input.note : undefined;
    const done = await run.act('bookkeeping').confirmSentByOperator({ emailId, draftId, by, ...(note ? { note } : {}) });
    await run.record(STATUS.sent, `marked sent by ${by} after checking delivery`);
    p.resolve?.({ draftId, status: STATUS.sent, message: `draft ${draftId} recorded as delivered (${done.messageId})` });
    return { status: STATUS.sent, messageId: done.messageId };
  }
  p.resolve?.({ draftId, status: STATUS.approved, message: `one more send attempt of draft ${draftId}, forced by ${by}` });
  // One forced attempt; its key makes Temporal's own retries of it count as the same attempt.
  return { force: { by, key: `${workflowInfo().runId}:${state.sendRounds + 1}` } };
}

/** After a failed round: the next one starts after RESEND_AFTER, or at once on `resend`. */
async function waitForNextRound(run: EmailRun, draftId: string): Promise<void> {
  const { state, decisions } = run;
  state.waitingFor = { kind: WAITING_KINDS.sendRound, draftId };
  // An answer from outside wakes it too: the next round's last look stands down.
  const nudged = await decisions.next(() => decisions.queue.length > 0 || decisions.answeredElsewhere, RESEND_AFTER);
  state.waitingFor = null;
  if (nudged && decisions.queue.length > 0) {
    const p = decisions.queue.shift()!;
    p.resolve?.({ draftId, status: STATUS.approved, message: `send round ${state.sendRounds + 1} started by ${String(p.input.by)}` });
  }
}
