import { allHandlersFinished, condition } from '@temporalio/workflow';
import type { SendSnapshot } from './email-stores.port';
import { STATUS, sendIsDone } from './email-status';
import { type EmailWorkflowInput } from './email-input';
import { draftUntilDecided } from './draft/draft-phase.workflow';
import { createEmailRun, type EmailRun, AlreadyHandedOver } from './email-run.workflow';
import type { EmailWorkflowResult } from './email-state.workflow';
import { runIntake } from './intake/intake-phase.workflow';
import { runSendPhase } from './send/send-phase.workflow';
import { EMAIL_AUDIT_EVENTS } from './email.contract';

export type {
  ApproveInput,
  CoverInput,
  DecisionInput,
  DecisionResult,
  MarkSentInput,
  RedraftInput,
  RejectInput,
  ResendInput,
  WaitingFor,
} from './decisions/decision-rules.workflow';
export type { EmailWorkflowResult, EmailWorkflowState, Refusal } from './email-state.workflow';

export * from './email-definitions.workflow';

/**
 * One email from fetch to sent reply. Its id is the email's business identity; large data stays
 * in MariaDB and only ids and the small draft view pass through history.
 *
 *   intake (fetch, parse, index) → draft → a person decides → send
 */
export async function EmailWorkflow(input: EmailWorkflowInput): Promise<EmailWorkflowResult> {
  const run = createEmailRun(input);
  const result = await handleEmail(run);
  // Signals refused while an activity ran are audited before the run ends.
  await run.decisions.flushRefusals();
  await condition(allHandlersFinished);
  return result;
}

async function handleEmail(run: EmailRun): Promise<EmailWorkflowResult> {
  try {
    const result = await runIntake(run);
    if (result) return result;
    // Imported history is never answered: the run ends here, and operators see how.
    if (run.input.historyOnly) return run.endHere();
    const decided = await draftUntilDecided(run);
    if (decided.kind === 'end') return decided.result;
    return await runSendPhase(run, decided.draftId);
  } catch (err) {
    if (!(err instanceof AlreadyHandedOver)) throw err;
    return finishHandedOver(run, err.record.send!);
  }
}

/**
 * A reply for this email was handed to the SMTP server by an earlier run (the workflow was reset,
 * or started again): the send ledger knows better than this run's history, so nothing is drafted
 * or sent again.
 */
async function finishHandedOver(run: EmailRun, send: SendSnapshot): Promise<EmailWorkflowResult> {
  const { state, decisions } = run;
  run.startSending();
  state.waitingFor = null;
  if (sendIsDone(send.status)) {
    await run.record(STATUS.sent, `already sent as ${send.messageId}; nothing sent again`, {
      eventType: EMAIL_AUDIT_EVENTS.alreadySent,
      errorClass: null,
      message: `draft ${send.draftId} was already sent as ${send.messageId}; this run ends without drafting or sending`,
    });
    for (const p of decisions.queue.splice(0)) p.resolve?.({ draftId: send.draftId, status: STATUS.sent, message: 'already sent' });
    return { status: STATUS.sent, messageId: send.messageId };
  }
  // In doubt (or interrupted): only a person may decide; drafting again could send a second reply.
  state.decision = { kind: 'approve', by: 'earlier run', draftId: send.draftId };
  return runSendPhase(run, send.draftId);
}
