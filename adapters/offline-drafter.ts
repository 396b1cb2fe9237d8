import { composeReply } from '../lib/reply-composer';
import type { DraftRequest, DraftResult, Drafter } from '../ports/drafter';

/** The offline drafter's "prompt version": its composer's, so the quality figures tell versions apart. */
export const OFFLINE_PROMPT_VERSION = 'offline-v2';

/**
 * Used when no LLM endpoint is configured: a reply composed from the retrieved knowledge passages
 * (cited) in the sender's language, or a plain statement that nothing relevant was found. Flagged
 * `offline_drafter` so no reviewer mistakes it for a model's answer.
 */
export function createOfflineDrafter(): Drafter {
  return {
    name: 'offline',
    async draft(req: DraftRequest): Promise<DraftResult> {
      const reply = composeReply(req);
      return {
        subject: /^(re|aw):/i.test(req.subject) ? req.subject : `Re: ${req.subject}`,
        body: reply.body,
        language: reply.language,
        category: 'unclassified',
        prioritySuggestion: 'normal',
        confidence: reply.confidence,
        usedSourceIds: reply.usedSourceIds,
        model: 'offline-retrieval',
        promptVersion: OFFLINE_PROMPT_VERSION,
        flags: reply.answered ? ['offline_drafter'] : ['offline_drafter', 'no_relevant_context'],
      };
    },
  };
}
