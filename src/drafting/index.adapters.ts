/**
 * The part of drafting/'s face that loads a driver or SDK: its adapters, and the commands and assemblies
 * that build them. The processes that wire the features import it, and the few features that assemble
 * another's adapters; everything else takes drafting/index.ts, which loads none.
 */
export { createMariaDbApprovedExamples } from './approved-examples.mariadb';
export { createMariaDbDraftClaimStore } from './draft-claims.mariadb';
export { recordDraftOutcome, recordRedrafted } from './draft-outcomes.mariadb';
export { readDraftSource } from './draft-sources.mariadb';
export { createOpenAiDrafter } from './drafter.openai';
export { llmCommands } from './llm-check.cli';
export { probeLlm } from './llm-probe.openai';
