/**
 * Names the drafting feature shares with the others: what the grounding check says of each factual
 * sentence of a draft (stored in `draft_claims.verdict`, shown by the review inbox, read by earned
 * autonomy). Imports nothing at run time.
 */
export const GROUNDING_VERDICTS = {
  /** The passage(s) it rests on contain its key facts and say what it says. */
  supported: 'supported',
  /** Nothing in the draft's context supports it: an invented fact or promise. */
  unsupported: 'unsupported',
  /** Tied to passages that do not support it, though another context item does: a wrong citation. */
  misTied: 'mis_tied',
  /**
   * Nothing but the customer's own mail supports it, and it is a commitment of ours (an amount, a
   * date, a refund, an exception, a promise, a status change such as "has been refunded"): the
   * customer said it, nobody here did. Never sent without a person.
   */
  customerAsserted: 'customer_asserted',
} as const;
export type GroundingVerdict = (typeof GROUNDING_VERDICTS)[keyof typeof GROUNDING_VERDICTS];

/**
 * The category of a mail that fits none of the others of the installation's list. Every list has
 * it (src/drafting/categories.ts adds it when the operator's list does not name it), so routing
 * rules, the autonomy policy and guidance can name it like any other. Unlike `unclassified`, where
 * no category could be worked out (no embedder, no list, a model's answer off the list), it is a
 * verdict: the mail was compared with the list and nothing fit (src/drafting/category-match.ts).
 */
export const GENERAL_CATEGORY = 'general';

/**
 * Status of one draft (table `drafts`). The email's own status (`emails.status`,
 * src/email/email-status.ts) takes the first four from here: it has them at the same moments.
 */
export const DRAFT_STATUS = {
  awaitingApproval: 'awaiting_approval',
  approved: 'approved',
  rejected: 'rejected',
  sent: 'sent',
  /** A newer draft of the same email replaced it before a decision. */
  stale: 'stale',
  /** A person answered the mail outside the assistant first: this draft is never sent. */
  withdrawn: 'withdrawn',
} as const;

export type DraftStatus = (typeof DRAFT_STATUS)[keyof typeof DRAFT_STATUS];

/**
 * What became of a decided draft (table `draft_outcomes`, docs/operating.md "Draft quality").
 * Light and heavy edits are split by the share of words changed (src/drafting/draft-outcome.ts).
 */
export const DRAFT_OUTCOME = {
  approvedUnchanged: 'approved_unchanged',
  lightEdit: 'light_edit',
  heavyEdit: 'heavy_edit',
  rejected: 'rejected',
  /** A newer draft replaced it before a decision: a person asked for one, or a follow-up came. */
  redrafted: 'redrafted',
  /** The reply that went out was written by a person (manual review, or no usable draft). */
  writtenByPerson: 'written_by_person',
} as const;

export type DraftOutcome = (typeof DRAFT_OUTCOME)[keyof typeof DRAFT_OUTCOME];

export const DRAFT_OUTCOMES: readonly DraftOutcome[] = Object.freeze(Object.values(DRAFT_OUTCOME));

/**
 * A case's handover summary (`cases.summary_kind`): made from the mails' own sentences, by the LLM,
 * or from the sentences because the LLM was asked and failed.
 */
export const CASE_SUMMARY_KINDS = { extractive: 'extractive', llm: 'llm', extractiveFallback: 'extractive_fallback' } as const;

export type CaseSummaryKind = (typeof CASE_SUMMARY_KINDS)[keyof typeof CASE_SUMMARY_KINDS];

/**
 * Notes a drafter attaches to a draft (`drafts.flags`) for the reviewer, who can filter on them.
 * Stored with the draft, so a name never changes once released.
 */
export const DRAFT_FLAGS = {
  /** A spam score fired on mail of a known sender (triage flagged, did not hold it): a person reviews it. */
  spamScore: 'spam_score',
  /** Composed from retrieved passages without a model. */
  offlineDrafter: 'offline_drafter',
  /** No retrieved passage answered the question: the draft says so and a person must answer. */
  noRelevantContext: 'no_relevant_context',
  /** A cited passage is in another language than the reply: it is quoted as it is, and named as such. */
  crossLanguageSource: 'cross_language_source',
  /**
   * A factual sentence of the draft (an amount, a date, a policy, a promise, a step) is not
   * supported by the context, or is tied to a passage that does not support it (src/drafting/grounding-check.ts).
   */
  unsupportedClaims: 'unsupported_claims',
  /** A commitment of the draft rests on nothing but the customer's own mail (GROUNDING_VERDICTS.customerAsserted). */
  customerAsserted: 'customer_asserted',
  /** The model's answer was not JSON of the schema; asked again, the second answer was. */
  jsonRepaired: 'json_repaired',
  /** Twice no JSON of the schema: the draft is empty and a person writes the reply. */
  jsonInvalidDefaults: 'json_invalid_defaults',
  /** The prompt exceeded the model's window: the model saw the mail and the context cut short, without examples (src/drafting/prompt-window.ts). */
  promptShortened: 'prompt_shortened',
} as const;

export type DraftFlag = (typeof DRAFT_FLAGS)[keyof typeof DRAFT_FLAGS];

/**
 * Earned autonomy (docs/cases.md "Earned autonomy"): the actor of an automatic approval (its audit
 * events are in src/autonomy/autonomy.contract.ts). `autonomy:<policy>` is never a person: its approvals are
 * recorded as outcomes but left out of the record that earns a category its autonomy.
 */
export const AUTONOMY_ACTOR_PREFIX = 'autonomy:';

/** What an automatic approval names as `by`. */
export function autonomyActor(policy: string): string {
  return `${AUTONOMY_ACTOR_PREFIX}${policy}`;
}

/** A LIKE pattern that matches every automatic approver's name (the prefix's `_` escaped): SQL's isAutomaticActor. */
export const AUTONOMY_ACTOR_LIKE = `${AUTONOMY_ACTOR_PREFIX.replace(/[_%]/g, '\\$&')}%`;

/** Whether a decision was made by the autonomy policy rather than by a person. */
export function isAutomaticActor(by: string | null | undefined): boolean {
  return typeof by === 'string' && by.startsWith(AUTONOMY_ACTOR_PREFIX);
}
