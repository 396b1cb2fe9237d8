import type { CaseSummaryMail, SummaryLanguage } from '../cases/case-summary';

/**
 * One piece of retrieved context. Where it may come from is a privacy rule (see docs/pipeline.md,
 * "Whose data a draft may see"): the same correspondent, the knowledge folder, or our own
 * replies to others with personal data masked.
 */
export interface DraftContextItem {
  /**
   * Traces the item to its source: an email id (our sent replies: `<email id>:draft:<n>:sent`)
   * or `knowledge:<relative path>#<passage n>` for the knowledge folder, or
   * `attachment:<file>#p<page>` for a page of the answered email's attachment.
   */
  sourceId: string;
  /**
   * `thread`: the same conversation; `similar` / `sender`: the correspondent's (or their
   * organisation's) other mail; `knowledge`: the knowledge folder; `own_reply`: our reply to
   * another correspondent, personal data masked; `attachment`: text read from a file attached to
   * the email being answered (`sourceId` `attachment:<file>#p<page>`).
   */
  kind: 'thread' | 'similar' | 'sender' | 'knowledge' | 'own_reply' | 'attachment';
  text: string;
  /** A short human label: the subject, or the knowledge file's path. */
  title?: string;
  /**
   * How retrieval found the item, when it ranked it: `fused` is the item's reciprocal-rank-fusion
   * score, `cosine` its vector similarity to the new mail (given whenever its vector was compared,
   * also for a word match below the vectors' floor; absent without vectors),
   * `wordRank` / `vectorRank` its 1-based rank by shared words and by vectors.
   */
  match?: { fused: number; cosine?: number; wordRank?: number; vectorRank?: number };
}
export interface DraftRequest {
  emailId: string;
  from: { name: string; address: string };
  subject: string;
  text: string;
  context: DraftContextItem[];
  /** The mailbox's language: used when the mail's own cannot be told (no German or English words). */
  language?: 'de' | 'en';
}

export interface DraftResult {
  subject: string;
  body: string;
  language: string;
  category: string;
  prioritySuggestion: 'critical' | 'high' | 'normal' | 'low';
  confidence: number;
  usedSourceIds: string[];
  model: string;
  promptVersion: string;
  /** Notes for the reviewer, e.g. `json_repaired`, `json_invalid_defaults`, `offline_drafter`. */
  flags: string[];
}

/** A model's handover summary of a case (see src/cases/case-summary.ts for the one made without a model). */
export interface CaseSummaryResult {
  text: string;
  model: string;
  promptVersion: string;
}

/** Writes a reply draft from an email and retrieved context. */
export interface Drafter {
  readonly name: string;
  draft(request: DraftRequest): Promise<DraftResult>;
  /**
   * A short summary of a case's mails (oldest first) for the reviewer, never sent to the customer,
   * written in `language`. Only a drafter with a model has it; it throws when the model fails or
   * takes longer than `timeoutMs` (when given, and shorter than the drafter's own timeout).
   */
  summarise?(mails: CaseSummaryMail[], language: SummaryLanguage, options?: { timeoutMs?: number }): Promise<CaseSummaryResult>;
}
