/**
 * The face of drafting/: what the other features and the processes may use of it, none of
 * which loads a driver or SDK (what does is in index.adapters.ts); everything else in the folder is
 * its own.
 *
 * Drafting: the drafters (a model over an OpenAI-compatible API, the offline composer), their
 * prompts and checks (the injection guard, claim grounding, categories, language), approved
 * replies as examples, case summaries, and a draft's status, flags and outcomes.
 */
export type { ApprovedExamples } from './approved-examples.port';
export { extractiveSummary } from './case-summary';
export type { CaseSummaryMail, SummaryKind, SummaryLanguage } from './case-summary';
export { categoryReferenceProblems, readCategoriesConfig } from './categories.config';
export { UNCLASSIFIED, knownCategory, readCategoryList } from './categories';
export type { Category } from './categories';
export { nearestCategory } from './category-match';
export { draftSentences } from './claim-sentences';
export type { DraftClaimStore, StoredClaim } from './draft-claims.port';
export { LIGHT_EDIT_LIMIT, changedShare, classifyApproval } from './draft-outcome';
export { PROMPT_VERSION } from './draft-prompt';
export type { SourceText } from './draft-sources.mariadb';
export { OFFLINE_PROMPT_VERSION, createOfflineDrafter } from './drafter.offline';
export type { DraftContextItem, DraftExample, DraftGuidance, DraftResult, Drafter } from './drafter.port';
export { DEFAULT_CONTEXT_CHARS, readDraftingConfig, takesExamples } from './drafting.config';
export type { DraftExampleSettings } from './drafting.config';
export {
  AUTONOMY_ACTOR_LIKE,
  CASE_SUMMARY_KINDS,
  DRAFT_FLAGS,
  DRAFT_OUTCOME,
  DRAFT_OUTCOMES,
  DRAFT_STATUS,
  GENERAL_CATEGORY,
  GROUNDING_VERDICTS,
  autonomyActor,
} from './drafting.contract';
export type { CaseSummaryKind, DraftOutcome, DraftStatus } from './drafting.contract';
export { wordEditDistance } from './edit-distance';
export { maskedExample } from './example-masking';
export { checkGrounding } from './grounding-check';
export type { GroundingResult } from './grounding-check';
export { extractHiddenText } from './html-hidden-text';
export type { InjectionFinding } from './injection-detector';
export { describeFindings, guardMail } from './injection-guard';
export { readIntentSet } from './injection-intents';
export { DEFAULT_INTENT_THRESHOLD } from './intent-detector';
export type { IntentDetectorSettings } from './intent-detector';
export { UNDETERMINED_LANGUAGE } from './language-code';
export { llmFinding } from './llm-check';
export type { LlmProbe } from './llm-check';
export { nonAnswerReply, questionOf } from './reply-composer';
export { separateCitations } from './source-citations';
export type { SeparatedCitations } from './source-citations';
export { internalSourceIds } from './source-ids';
