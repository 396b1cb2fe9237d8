import { parseRawEmail } from '../adapters/mail-parser';
import type { Priority } from '../lib/domain';
import { PermanentError } from '../lib/errors';
import { higher } from '../lib/priority-rules';
import type { ActivityDeps } from './deps';
import { transition } from './context';
import { joinThread } from './thread-join';

export interface ParseSummary {
  priority: Priority;
  hasReplyAddress: boolean;
  attachments: number;
}

export function createParseActivities(deps: Pick<ActivityDeps, 'messages' | 'audit' | 'settings'>) {
  return {
    async parseEmail(input: { emailId: string; priority?: Priority }): Promise<ParseSummary> {
      const raw = await deps.messages.getRaw(input.emailId);
      if (!raw) throw new PermanentError(`no stored message for ${input.emailId}`, 'MESSAGE_GONE');
      const parsed = await parseRawEmail(raw, input.emailId);
      // A reply joins a known thread only if its sender took part in it.
      parsed.threadId = await joinThread(deps, input.emailId, parsed);
      // Intake may already have raised it (sender and keyword rules): keep the more urgent one.
      if (input.priority) parsed.priority = higher(parsed.priority, input.priority);
      await deps.messages.saveParsed(input.emailId, parsed);
      await transition(
        deps,
        input.emailId,
        'parsed',
        `"${parsed.subject.slice(0, 120)}" from ${parsed.from?.address ?? 'unknown sender'}`,
        {
          attachments: parsed.attachments.length,
          priority: parsed.priority,
        },
      );
      return {
        priority: parsed.priority,
        hasReplyAddress: Boolean(parsed.replyTo ?? parsed.from),
        attachments: parsed.attachments.length,
      };
    },
  };
}
