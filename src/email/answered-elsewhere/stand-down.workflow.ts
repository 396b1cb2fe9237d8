/**
 * A person answered the mail outside the assistant (their own client, a colleague's address):
 * the run stands down. Its unsent drafts are withdrawn, the email ends `answered_elsewhere` with
 * who answered and when, and a decision still queued is answered with the same line.
 */
import { STATUS } from '../email-status';
import type { EmailRun } from '../email-run.workflow';
import type { EmailWorkflowResult } from '../email-state.workflow';
import { EMAIL_AUDIT_EVENTS } from '../email.contract';
import { answeredElsewhereText } from '../decisions/decision-rules.workflow';

export async function standDown(run: EmailRun): Promise<EmailWorkflowResult> {
  const { emailId, state, decisions } = run;
  state.waitingFor = null;
  decisions.decided = 'a person answered the mail outside the assistant';
  const draftId = state.draft?.draftId;
  const done = await run.act('bookkeeping').withdrawForOutsideAnswer({ emailId, ...(draftId ? { draftId } : {}) });
  if (done.note) state.answeredElsewhere = done.note;
  const line = state.answeredElsewhere ? answeredElsewhereText(state.answeredElsewhere) : 'the mail was answered outside the assistant';
  await run.record(STATUS.answeredElsewhere, line, {
    eventType: EMAIL_AUDIT_EVENTS.answeredElsewhere,
    errorClass: null,
    message: `${line}; ${done.withdrawn > 0 ? `draft withdrawn (${done.withdrawn})` : 'no draft was waiting'}, nothing is sent`,
  });
  for (const p of decisions.queue.splice(0)) {
    p.resolve?.({ draftId: String(p.input.draftId ?? ''), status: STATUS.answeredElsewhere, message: `refused: ${line}` });
  }
  return { status: STATUS.answeredElsewhere, ...(state.answeredElsewhere ? { messageId: state.answeredElsewhere.messageId } : {}) };
}
