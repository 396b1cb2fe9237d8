import { DRAFT_FLAGS } from '../platform/contract';
import { UNCLASSIFIED } from './categories';
import { composeReply, type ComposeSettings } from './reply-composer';
import type { DraftRequest, DraftResult, Drafter } from './drafter.port';

/** The offline drafter's "prompt version": its composer's, so the quality figures tell versions apart. */
export const OFFLINE_PROMPT_VERSION = 'offline-v3';

/**
 * Used when no LLM endpoint is configured: a reply composed from the retrieved knowledge passages
 * (cited) in the sender's language, or a plain statement that nothing relevant was found. Flagged
 * `offline_drafter` so no reviewer mistakes it for a model's answer, `cross_language_source` when
 * it quotes a passage in the other language.
 */
export function createOfflineDrafter(settings: ComposeSettings = {}): Drafter {
  return {
    name: 'offline',
    async draft(req: DraftRequest): Promise<DraftResult> {
      const reply = composeReply(req, settings);
      const flags: string[] = [DRAFT_FLAGS.offlineDrafter];
      if (!reply.answered) flags.push(DRAFT_FLAGS.noRelevantContext);
      if (reply.otherLanguageSourceIds.length > 0) flags.push(DRAFT_FLAGS.crossLanguageSource);
      return {
        subject: /^(re|aw):/i.test(req.subject) ? req.subject : `Re: ${req.subject}`,
        body: reply.body,
        language: reply.language,
        category: req.categoryHint ?? UNCLASSIFIED,
        prioritySuggestion: 'normal',
        confidence: reply.confidence,
        usedSourceIds: reply.usedSourceIds,
        model: 'offline-retrieval',
        // v3: passages chosen by retrieval's match (vector similarity), headings kept out, other-language sources named.
        promptVersion: OFFLINE_PROMPT_VERSION,
        flags,
        answersEmailIds: reply.answersEmailIds,
        claims: reply.claims,
      };
    },
  };
}
