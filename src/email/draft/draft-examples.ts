/**
 * The draft step's examples: up to DRAFT_EXAMPLES replies of the same mailbox and category that a
 * person approved unchanged or lightly edited, masked (docs/guidance.md#examples). One read per
 * draft, and none when it could not help: examples off, the offline drafter (it quotes passages and
 * follows no example), or no category known before drafting. Examples are a help, not a need: a
 * failed read means a draft without them.
 */
import type { EmailDeps } from '../email-deps';
import { type DraftExample, takesExamples } from '../../drafting';
import { errorMessage } from '../../platform/errors';
import { createLogger } from '../../platform/logger';

const logger = createLogger('draft-examples');

export type DraftExamplesDeps = Pick<EmailDeps, 'approvedExamples' | 'drafter'> & {
  settings?: Pick<EmailDeps['settings'], 'draftExamples'>;
};

/** True when this worker's drafts take examples at all: the category must then be known before drafting. */
export function examplesWanted(deps: DraftExamplesDeps): boolean {
  return deps.approvedExamples !== undefined && takesExamples(deps.settings?.draftExamples, deps.drafter.name);
}

export async function draftExamples(
  deps: DraftExamplesDeps,
  email: { id: string; mailboxId: string },
  category: string | undefined,
): Promise<DraftExample[]> {
  const settings = deps.settings?.draftExamples;
  if (!examplesWanted(deps) || !settings || !category) return [];
  try {
    return await deps.approvedExamples!.recent({
      mailboxId: email.mailboxId,
      category,
      limit: settings.count,
      maxChars: settings.maxChars,
      excludeEmailId: email.id,
    });
  } catch (err) {
    logger.warn('drafting without examples: they could not be read', { emailId: email.id, error: errorMessage(err) });
    return [];
  }
}
