/**
 * The shadow evidence of one draft: the replay's measures (similarity, edit share, facts found,
 * would-be outcome, and the non-answer floor on the same pair) of the draft a person answered
 * instead of, against the reply they sent.
 */
import { DRAFT_FLAGS, nonAnswerReply } from '../drafting';
import { measurePair } from '../replay';
import { EMAIL_AUDIT_EVENTS, type DraftMeasure } from '../email';
import type { Embedder } from '../retrieval';
import type { AuditLog } from '../platform/store.port';
import type { ShadowEvidenceStore } from './shadow-evidence.port';

export function createDraftMeasure(deps: { store: ShadowEvidenceStore; embedder?: Embedder; audit: AuditLog }): DraftMeasure {
  return {
    async measure({ emailId, mailboxId, mode, draft, reply }) {
      const gap = draft.flags.includes(DRAFT_FLAGS.noRelevantContext);
      const language = draft.language === 'de' ? 'de' : 'en';
      const m = await measurePair(
        { draft: draft.body, sent: reply.text, answerable: !gap && draft.body.trim() !== '', nonAnswer: nonAnswerReply(language) },
        deps.embedder,
      );
      await deps.store.save({
        emailId,
        mailboxId,
        mailboxMode: mode,
        draftId: draft.id,
        replyMessageId: reply.messageId,
        category: draft.category ?? '',
        language: draft.language,
        outcome: m.outcome,
        similarity: m.similarity,
        nonAnswerSimilarity: m.nonAnswerSimilarity,
        editShare: m.editShare,
        factsTotal: m.factsTotal,
        factsFound: m.factsFound,
        knowledgeGap: gap,
        repliedAt: reply.sentAt,
      });
      await deps.audit.record({
        emailId,
        correlationId: emailId,
        eventType: EMAIL_AUDIT_EVENTS.shadowMeasured,
        errorClass: null,
        message: `draft ${draft.id} against the team's reply ${reply.messageId}: ${m.outcome}, similarity ${m.similarity ?? '–'} (non-answer ${m.nonAnswerSimilarity ?? '–'}), edit share ${m.editShare}, facts ${m.factsFound}/${m.factsTotal}`,
        details: { mode, outcome: m.outcome, similarity: m.similarity, editShare: m.editShare },
        eventKey: `${emailId}:${EMAIL_AUDIT_EVENTS.shadowMeasured}`,
      });
    },
  };
}
