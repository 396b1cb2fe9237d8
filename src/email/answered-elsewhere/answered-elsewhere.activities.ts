import type { EmailDeps } from '../email-deps';
import { answeredText } from './outside-answers';
import type { StandDownResult } from '../email-activities';

export function createAnsweredElsewhereActivities(deps: Pick<EmailDeps, 'drafts' | 'outsideReplies'>) {
  return {
    /**
     * A person answered the mail outside the assistant: its drafts that were not sent are
     * withdrawn (never approved or sent later). Idempotent: a retry withdraws nothing more.
     */
    async withdrawForOutsideAnswer(input: { emailId: string }): Promise<StandDownResult> {
      const withdrawn = await deps.drafts.withdraw(input.emailId);
      const answer = (await deps.outsideReplies?.answerOf(input.emailId)) ?? null;
      if (!answer) return { text: 'answered outside the assistant', messageId: null, by: null, at: null, withdrawn };
      return {
        text: answeredText(answer),
        messageId: answer.reply.messageId,
        by: answer.reply.from.address || null,
        at: answer.reply.sentAt.toISOString(),
        withdrawn,
      };
    },
  };
}
