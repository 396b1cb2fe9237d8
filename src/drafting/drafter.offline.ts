import { DRAFT_FLAGS } from './drafting.contract';
import { UNCLASSIFIED } from './categories';
import { composeReply, type ComposeSettings } from './reply-composer';
import type { DraftGuidance, DraftRequest, DraftResult, Drafter } from './drafter.port';
import { REPLY_WORDING, type ReplyLanguage } from './reply-wording';

/**
 * The one part of a team's guidance a drafter without a model can follow: a line
 * `Closing: …` or `Grußformel: …` (optionally for one language, `Closing (en): …`) replaces the
 * composed reply's closing; `\n` in it breaks the line. The last such line for the reply's
 * language wins (the sections run from general to specific). Everything else in the guidance is
 * free text only a model can follow (docs/guidance.md).
 */
export function guidanceClosing(guidance: DraftGuidance | undefined, language: ReplyLanguage): string | undefined {
  let closing: string | undefined;
  for (const section of guidance?.sections ?? []) {
    for (const m of section.text.matchAll(/^[ \t]*(?:closing|grußformel)[ \t]*(?:(?:\((de|en)\))[ \t]*)?:[ \t]*(\S.*)$/gim)) {
      if (!m[1] || m[1].toLowerCase() === language) closing = m[2]!.trim().replace(/\\n/g, '\n');
    }
  }
  return closing;
}

/** The offline drafter's "prompt version": its composer's, so the quality figures tell versions apart. */
export const OFFLINE_PROMPT_VERSION = 'offline-v4';

/**
 * Used when no LLM endpoint is configured: a reply composed from the retrieved knowledge passages
 * (each quoted sentence cited in its claims, not in the text) in the sender's language, or a plain statement that nothing relevant was found. Flagged
 * `offline_drafter` so no reviewer mistakes it for a model's answer, `cross_language_source` when
 * it quotes a passage in the other language. It ignores examples (`req.examples`): it quotes
 * passages in its own fixed wording and has nothing an example's tone could shape.
 */
export function createOfflineDrafter(settings: ComposeSettings = {}): Drafter {
  return {
    name: 'offline',
    async draft(req: DraftRequest): Promise<DraftResult> {
      const reply = composeReply(req, settings);
      const closing = guidanceClosing(req.guidance, reply.language);
      const shipped = REPLY_WORDING[reply.language].closing;
      const body = closing && reply.body.endsWith(shipped) ? `${reply.body.slice(0, -shipped.length)}${closing}` : reply.body;
      const flags: string[] = [DRAFT_FLAGS.offlineDrafter];
      if (!reply.answered) flags.push(DRAFT_FLAGS.noRelevantContext);
      if (reply.otherLanguageSourceIds.length > 0) flags.push(DRAFT_FLAGS.crossLanguageSource);
      return {
        subject: /^(re|aw):/i.test(req.subject) ? req.subject : `Re: ${req.subject}`,
        body,
        language: reply.language,
        category: req.categoryHint ?? UNCLASSIFIED,
        prioritySuggestion: 'normal',
        confidence: reply.confidence,
        usedSourceIds: reply.usedSourceIds,
        model: 'offline-retrieval',
        // v4: no source id in the text (v3: "(Quelle: …)" notes); the claims name each quoted sentence's passage.
        promptVersion: OFFLINE_PROMPT_VERSION,
        flags,
        answersEmailIds: reply.answersEmailIds,
        claims: reply.claims,
      };
    },
  };
}
