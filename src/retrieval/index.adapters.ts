/**
 * The part of retrieval/'s face that loads a driver or SDK: its adapters, and the commands and assemblies
 * that build them. The processes that wire the features import it, and the few features that assemble
 * another's adapters; everything else takes retrieval/index.ts, which loads none.
 */
export { buildIndex, configuredGraph, sharedEmbedder, syncKnowledgeFolder } from './configured-index';
export { checkEmbedder, embedderCommand } from './embedder.cli';
export { buildEmbedder, remoteEmbedder } from './embedder';
export { createFullTextIndex } from './fulltext-index.mariadb';
export { knowledgeCommands } from './knowledge.cli';
export { createMariaDbPersonalData } from './personal-data.mariadb';
