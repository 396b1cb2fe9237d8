import type { CaseSummaryMail, SummaryLanguage } from './case-summary';
import type { DraftContextItem } from '../retrieval';

export type { DraftContextItem };

export interface DraftRequest {
  emailId: string;
  from: { name: string; address: string };
  subject: string;
  text: string;
  context: DraftContextItem[];
  /** The mailbox's language: used when the mail's own cannot be told (no German or English words). */
  language?: 'de' | 'en';
  /** The installation's categories: the model picks one of these names (src/drafting/categories.ts). */
  categories?: ReadonlyArray<{ name: string; description: string }>;
  /** The nearest category by meaning, for a drafter without a model (src/drafting/category-match.ts). */
  categoryHint?: string;
  /** The team's own instructions for this draft (src/guidance/): trusted text, written by its administrators. */
  guidance?: DraftGuidance;
  /**
   * Earlier replies of the mailbox in the mail's category that a person approved unchanged or
   * lightly edited, masked (src/drafting/example-masking.ts), newest first: examples of tone and
   * form, never a source of facts. Only a drafter with a model uses them.
   */
  examples?: DraftExample[];
}

/** One approved reply as it enters a prompt: masked and bounded; it has no id, as nothing may cite it. */
export interface DraftExample {
  text: string;
}

/**
 * Guidance as it enters a prompt: each scope's current text (most general first, at most
 * GUIDANCE_MAX_CHARS together) and the identifier of the versions used, which the draft stores.
 */
export interface DraftGuidance {
  sections: Array<{ scope: string; version: number; text: string }>;
  /** `g12+g15`: the ids of the guidance versions in the prompt. */
  version: string;
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
  /**
   * The other open mails of the case (context items with `openInCase`) this draft answers too. A
   * case reply marks only these answered; the others wait for their own reply.
   */
  answersEmailIds?: string[];
  /**
   * The drafter's own account of its factual sentences: each sentence of the body that states a
   * fact and the context ids it rests on. Checked, never trusted (src/drafting/grounding-check.ts).
   */
  claims?: DraftClaim[];
}

/** One factual sentence of a draft, as its drafter ties it to the context. */
export interface DraftClaim {
  /** The sentence as it stands in the body (a model's copy may differ slightly: it is matched). */
  sentence: string;
  /** Ids of the context items it rests on (`knowledge:<path>#<n>`, `attachment:<file>#p<n>`, …). */
  sourceIds: string[];
}

/** A model's handover summary of a case (see src/drafting/case-summary.ts for the one made without a model). */
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
