import { workflowInfo, type proxyActivities, type proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { RecordedStatus, StatusToRecord } from '../activities/status-activities';
import { sentTransition, type StatusStep } from '../lib/status-transitions';
import { FAILURE_TYPES, type DecisionName } from '../lib/contract';
import type { EmailStatus } from '../lib/domain';
import type { ProfileName } from './activity-profiles';
import type { DecisionResult } from './decision-rules';
import type { EmailWorkflowResult, EmailWorkflowState } from './email-state';
import { errorClassOf, failureText, failureTypeOf } from './failures';

/** How long an approved reply waits after its send attempts ran out before trying again. */
const RESEND_AFTER = '1 hour';
const MAX_SEND_ROUNDS = 24;

/** What the send phase needs from the email workflow that runs it. */
export interface SendControl {
  emailId: string;
  draftId: string;
  state: EmailWorkflowState;
  queue: Array<{ name: DecisionName; input: Record<string, unknown>; resolve?: (r: DecisionResult) => void }>;
  next(pred: () => boolean, timeout?: string): Promise<boolean>;
  record(status: EmailStatus, reason: string, event?: { eventType: string; errorClass: string | null; message: string }): Promise<void>;
  /** `send-records-sent-v6`: the number under which the send activity records `sent` (undefined before). */
  reserveSent(): StatusToRecord | undefined;
  /** The transition the send activity reached: recorded by it (v6), else recorded by the workflow. */
  reached(done: RecordedStatus | undefined, t: StatusStep): Promise<void>;
  stop(status: EmailStatus, eventType: string, err: unknown): Promise<EmailWorkflowResult>;
  act(profile: ProfileName): ReturnType<typeof proxyActivities<Activities>>;
  book: ReturnType<typeof proxyLocalActivities<Activities>>;
}

/**
 * SMTP: 3 attempts per round; between rounds the draft stays approved and waits for the timer or a
 * `resend`. A send in doubt (the message may have been handed over) waits for a person: `resend`
 * with force (one more attempt, once) or `markSent` (they checked it arrived).
 */
export async function runSendPhase(c: SendControl): Promise<EmailWorkflowResult> {
  const { emailId, draftId, state } = c;
  let force: { by: string; key: string } | undefined;
  for (;;) {
    state.sendRounds += 1;
    try {
      const toRecord = c.reserveSent();
      const sent = await c.act('send').sendReply({
        emailId,
        draftId,
        statusOwner: 'workflow',
        ...(force ? { force } : {}),
        ...(toRecord ? { record: toRecord } : {}),
      });
      await c.reached(sent.recorded, sentTransition(sent));
      return { status: 'sent', messageId: sent.messageId };
    } catch (err) {
      force = undefined;
      state.lastError = failureText(err);
      if (failureTypeOf(err) === FAILURE_TYPES.sendInDoubt) {
        const since = new Date().toISOString();
        state.waitingFor = { kind: 'send_in_doubt', draftId, since };
        await c.record('approved', `send of draft ${draftId} in doubt since ${since}: a person checks the SMTP log and decides`, {
          eventType: 'send_waits_for_operator',
          errorClass: 'unclear',
          message: state.lastError,
        });
        await c.next(() => c.queue.length > 0);
        const p = c.queue.shift()!;
        const by = String(p.input.by);
        state.waitingFor = null;
        if (p.name === 'markSent') {
          const note = typeof p.input.note === 'string' ? p.input.note : undefined;
          const done = await c.act('bookkeeping').confirmSentByOperator({ emailId, draftId, by, ...(note ? { note } : {}) });
          await c.record('sent', `marked sent by ${by} after checking delivery`);
          p.resolve?.({ draftId, status: 'sent', message: `draft ${draftId} recorded as delivered (${done.messageId})` });
          return { status: 'sent', messageId: done.messageId };
        }
        // One forced attempt; its key makes Temporal's own retries of it count as the same attempt.
        force = { by, key: `${workflowInfo().runId}:${state.sendRounds + 1}` };
        p.resolve?.({ draftId, status: 'approved', message: `one more send attempt of draft ${draftId}, forced by ${by}` });
        continue;
      }
      if (errorClassOf(err) === 'permanent') return c.stop('failed', 'send_failed', err);
      await c.record('approved', `send round ${state.sendRounds} failed; the approved reply is sent again later`, {
        eventType: 'send_gave_up',
        errorClass: 'transient',
        message: `send round ${state.sendRounds} failed: ${state.lastError}; the approved reply is sent again later`,
      });
      if (state.sendRounds >= MAX_SEND_ROUNDS) return c.stop('failed', 'send_failed', err);
      state.waitingFor = { kind: 'send_round', draftId };
      const nudged = await c.next(() => c.queue.length > 0, RESEND_AFTER);
      state.waitingFor = null;
      if (nudged) {
        const p = c.queue.shift()!;
        p.resolve?.({ draftId, status: 'approved', message: `send round ${state.sendRounds + 1} started by ${String(p.input.by)}` });
      }
    }
  }
}
