/**
 * The retrieval section of the configuration (src/config.ts assembles the sections): whose data a
 * draft may see, how retrieval ranks it, and the optional vector index and thread graph.
 */
import { homedir } from 'node:os';
import path from 'node:path';
import { DEFAULT_MIN_COSINE, RETRIEVAL_METHODS, type RetrievalMethod } from './hybrid-ranking';
import { envValues, type Env } from '../platform/env-values';

/** The default of RETRIEVAL_KNOWLEDGE_WARN_PASSAGES: far above a help centre with all its versions. */
export const KNOWLEDGE_WARN_PASSAGES = 500_000;
/** The default of RETRIEVAL_INDEX_DIR: the user's state directory (XDG), created on first save. */
const DEFAULT_INDEX_DIR = path.join(process.env.XDG_STATE_HOME || path.join(homedir(), '.local', 'state'), 'email-rag');

/** RETRIEVAL_INDEX_DIR: an absolute path (created when missing), or `off`. */
function indexDir(raw: string, problems: string[]): string | undefined {
  if (raw === 'off') return undefined;
  if (!path.isAbsolute(raw)) problems.push(`RETRIEVAL_INDEX_DIR must be an absolute path or "off": "${raw}"`);
  return raw;
}

export interface RetrievalConfig {
  /** Whose data a draft may see (docs/pipeline.md): the correspondent's, the knowledge folder's, masked replies. */
  context: {
    /** CONTEXT_INCLUDE_ORGANISATION: colleagues at the same non-public mail domain count as the correspondent. */
    includeOrganisation: boolean;
    /** CONTEXT_REUSE_REPLIES: our replies to others as masked knowledge, or not at all. */
    reuseReplies: 'masked' | 'off';
    /** THREAD_JOIN_ORGANISATION: a colleague of a thread's participants may join it by In-Reply-To. */
    threadJoinOrganisation: boolean;
    /** KNOWLEDGE_DIR: Markdown and text files (FAQ, policies) always allowed as context. */
    knowledgeDir?: string;
  };
  /** How retrieval ranks what the scope allows (src/retrieval/hybrid-ranking.ts). */
  retrieval: {
    /** RETRIEVAL_METHOD: shared words and vectors fused (default), or either alone. */
    method: RetrievalMethod;
    /** RETRIEVAL_MIN_COSINE: the similarity below which vectors alone do not bring a passage. */
    minCosine: number;
    /**
     * RETRIEVAL_INDEX_DIR: where the knowledge folder's nearest-neighbour index is saved (one file
     * per embedding model); `off`: kept in memory only, rebuilt from MariaDB at every start.
     */
    indexDir?: string;
    /** RETRIEVAL_KNOWLEDGE_WARN_PASSAGES: past this many knowledge passages, a loud warning and an audit row. */
    knowledgeWarnPassages: number;
  };
  qdrant?: { url: string; apiKey?: string; collection: string };
  arango?: { url: string; database: string; username: string; password: string };
}

/**
 * CONTEXT_*, THREAD_JOIN_ORGANISATION, KNOWLEDGE_DIR, RETRIEVAL_*, QDRANT_* and ARANGO_*.
 * `vectors`: whether the embedder gives vectors (EMBEDDER is not off), which QDRANT_URL needs.
 */
export function readRetrievalConfig(env: Env, problems: string[], vectors: boolean): RetrievalConfig {
  const v = envValues(env, problems);
  const config: RetrievalConfig = {
    context: {
      includeOrganisation: v.boolean('CONTEXT_INCLUDE_ORGANISATION', true),
      reuseReplies: v.oneOf('CONTEXT_REUSE_REPLIES', ['masked', 'off'] as const, 'masked'),
      threadJoinOrganisation: v.boolean('THREAD_JOIN_ORGANISATION', false),
      knowledgeDir: v.directory('KNOWLEDGE_DIR'),
    },
    retrieval: {
      method: v.oneOf('RETRIEVAL_METHOD', RETRIEVAL_METHODS, 'hybrid'),
      // A cosine similarity: -1 – 1.
      minCosine: v.numberInRange('RETRIEVAL_MIN_COSINE', DEFAULT_MIN_COSINE, -1, 1),
      indexDir: indexDir(v.text('RETRIEVAL_INDEX_DIR', DEFAULT_INDEX_DIR), problems),
      knowledgeWarnPassages: v.intInRange('RETRIEVAL_KNOWLEDGE_WARN_PASSAGES', KNOWLEDGE_WARN_PASSAGES, 1_000),
    },
    qdrant: undefined,
    arango: undefined,
  };
  const qdrantUrl = v.url('QDRANT_URL', ['http:', 'https:']);
  if (qdrantUrl) {
    config.qdrant = {
      url: qdrantUrl,
      apiKey: v.optional('QDRANT_API_KEY'),
      collection: v.text('QDRANT_COLLECTION', 'email_passages'),
    };
    if (!vectors) problems.push('QDRANT_URL needs vectors: unset EMBEDDER=off (local) or set EMBEDDER=remote with EMBEDDING_BASE_URL');
  }
  const arangoUrl = v.url('ARANGO_URL', ['http:', 'https:']);
  if (arangoUrl) {
    config.arango = {
      url: arangoUrl,
      database: v.text('ARANGO_DATABASE', 'email_rag'),
      username: v.text('ARANGO_USER', 'root'),
      password: env.ARANGO_PASSWORD ?? '',
    };
  }
  return config;
}

// This feature's section of the whole configuration (src/platform/config.ts).
declare module '../platform/config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged into the whole configuration
  interface Config extends RetrievalConfig {}
}
