import type { EmailWorkflowInput } from '../lib/domain';
import { PermanentError } from '../lib/errors';
import type { ActivityDeps } from './deps';
import { legacyTransition, type StatusOwned } from './context';

/** Downloads the raw message once and stores it; the workflow only ever sees its id. */
export function createFetchActivities(deps: Pick<ActivityDeps, 'mailbox' | 'messages' | 'audit' | 'settings'>) {
  return {
    async fetchEmail(input: EmailWorkflowInput & StatusOwned): Promise<{ size: number }> {
      const { source, emailId } = input;
      if (source.kind === 'stored') {
        const raw = await deps.messages.getRaw(emailId);
        if (!raw) throw new PermanentError(`no stored message for ${emailId}`, 'MESSAGE_GONE');
        await legacyTransition(input, deps, emailId, 'fetched', 'stored message taken over', { size: raw.length });
        return { size: raw.length };
      }
      const existing = await deps.messages.getRaw(emailId);
      const raw =
        existing ??
        (await deps.mailbox.fetchRaw({
          mailbox: source.mailbox,
          uidValidity: source.uidValidity,
          uid: source.uid,
          maxBytes: deps.settings.maxMessageBytes,
        }));
      await deps.messages.saveRaw({
        emailId,
        source: 'imap',
        mailbox: source.mailbox,
        uidValidity: source.uidValidity,
        uid: source.uid,
        raw,
        historyOnly: input.historyOnly ?? false,
      });
      await legacyTransition(input, deps, emailId, 'fetched', `UID ${source.uid} from ${source.mailbox}`, { size: raw.length });
      return { size: raw.length };
    },
  };
}
