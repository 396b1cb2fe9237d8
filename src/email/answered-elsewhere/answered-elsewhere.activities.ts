import type { EmailDeps } from '../email-deps';
import { answeredNote } from './outside-answers';
import type { OutsideAnswer } from './outside-replies.port';
import { MAILBOX_MODES } from '../../mailboxes';
import { errorMessage } from '../../platform/errors';
import { EMAIL_AUDIT_EVENTS } from '../email.contract';
import type { StandDownResult } from '../email-activities';

export function createAnsweredElsewhereActivities(
  deps: Pick<EmailDeps, 'drafts' | 'outsideReplies' | 'draftMeasure' | 'mailboxes' | 'audit'>,
) {
  return {
    /**
     * A person answered the mail outside the assistant: its drafts that were not sent are
     * withdrawn (never approved or sent later). Idempotent: a retry withdraws nothing more.
     */
    async withdrawForOutsideAnswer(input: { emailId: string; draftId?: string }): Promise<StandDownResult> {
      const withdrawn = await deps.drafts.withdraw(input.emailId);
      const answer = (await deps.outsideReplies?.answerOf(input.emailId)) ?? null;
      if (!answer) return { note: null, withdrawn };
      await measureDraft(deps, input, answer);
      return { note: answeredNote(answer), withdrawn };
    },
  };
}

/**
 * The withdrawn draft against the reply the person sent: shadow evidence. A measure that fails
 * (the embedder down) is audited and never stops the stand-down.
 */
async function measureDraft(
  deps: Pick<EmailDeps, 'drafts' | 'draftMeasure' | 'mailboxes' | 'audit'>,
  input: { emailId: string; draftId?: string },
  answer: OutsideAnswer,
): Promise<void> {
  if (!deps.draftMeasure || !input.draftId) return;
  const draft = await deps.drafts.get(input.draftId);
  if (!draft || draft.body.trim() === '') return;
  const mailboxId = answer.reply.mailboxId;
  const mode = deps.mailboxes.list().find((m) => m.id === mailboxId)?.mode ?? MAILBOX_MODES.live;
  try {
    await deps.draftMeasure.measure({ emailId: input.emailId, mailboxId, mode, draft, reply: answer.reply });
  } catch (err) {
    await deps.audit.record({
      emailId: input.emailId,
      correlationId: input.emailId,
      eventType: EMAIL_AUDIT_EVENTS.shadowMeasured,
      errorClass: 'dependency',
      message: `draft ${draft.id} not measured against the team's reply: ${errorMessage(err)}`,
      eventKey: `${input.emailId}:${EMAIL_AUDIT_EVENTS.shadowMeasured}:failed`,
    });
  }
}
