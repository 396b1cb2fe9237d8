import { PermanentError } from '../lib/errors';
import type { ActivityDeps } from './deps';
import { transition } from './context';

export function createIndexActivities(deps: Pick<ActivityDeps, 'messages' | 'audit' | 'index'>) {
  return {
    async indexEmail(input: { emailId: string }): Promise<{ index: string }> {
      const email = await deps.messages.getEmail(input.emailId);
      if (!email) throw new PermanentError(`email ${input.emailId} is not stored`, 'MESSAGE_GONE');
      await deps.index.index({
        emailId: email.id,
        threadId: email.threadId,
        mailbox: email.mailbox ?? '',
        direction: 'in',
        fromAddress: email.from?.address ?? '',
        subject: email.subject,
        text: email.text,
        date: email.date,
      });
      await transition(deps, email.id, 'indexed', `indexed in ${deps.index.name}`);
      return { index: deps.index.name };
    },
  };
}
