/**
 * The index as the configuration describes it: built by the worker, and by the CLI commands that
 * index or search outside it.
 */
import { correlationId } from '../platform/activity-context';
import type { Config } from '../platform/config';
import { errorMessage } from '../platform/errors';
import type { Pool } from '../platform/pool.mariadb';
import type { AuditLog } from '../platform/store.port';
import type { StoredEmails } from './stored-emails.port';
import { isolationKey } from '../mailboxes';
import { createMariaDbPersonalData } from './personal-data.mariadb';
import { createCompositeIndex } from './composite-index';
import type { Embedder } from './embedder.port';
import { createFullTextIndex } from './fulltext-index.mariadb';
import { pruneKnowledgeLog } from './knowledge-neighbours.mariadb';
import { readKnowledgeFolder } from './knowledge-folder.file';
import { createMariaDbKnowledgeLedger } from './knowledge-ledger.mariadb';
import { syncKnowledge, type KnowledgeSyncResult } from './knowledge-sync';
import { limitEmbedder } from './limited-embedder';
import { rememberVectors } from './vector-memory';
import { createArangoGraph } from './thread-graph.arango';
import type { ThreadGraph } from './thread-graph.port';
import type { VectorIndex } from './vector-index.port';
import { createQdrantIndex } from './vector-index.qdrant';
import { RETRIEVAL_AUDIT_EVENTS } from './retrieval.contract';

/** The thread graph in ArangoDB, when ARANGO_URL names one. */
export function configuredGraph(config: Config): ThreadGraph | undefined {
  const a = config.arango;
  return a ? createArangoGraph({ url: a.url, databaseName: a.database, username: a.username, password: a.password }) : undefined;
}

/**
 * The worker's one embedder as every user of it shares it: limited to EMBEDDER_CONCURRENCY calls at
 * a time and remembering recent vectors (src/retrieval/vector-memory.ts). The index, the draft
 * step's grounding check, the intent guard and the replay all take this one, so that a text any of
 * them embedded is not asked again and none of them goes around the limit.
 */
export function sharedEmbedder(config: Config, embedder: Embedder): Embedder {
  // Queries and passages are embedded alike unless the model wants them told apart (E5 prefixes, an input_type field).
  return rememberVectors(limitEmbedder(embedder, config.worker.concurrency.embedder), { kindsAlike: config.embedder.inputType === 'none' });
}

/**
 * The index with every configured part: full text always (with vectors beside the passages when
 * there is an embedder), Qdrant and ArangoDB when set, all scoped by each email's isolation key
 * (its mailbox's team, or account and folder) and the context rules of the config. `embedder`:
 * the embedder of the configuration; Qdrant without one embeds through EMBEDDING_BASE_URL as
 * before, and that embedder then serves the full-text index too. One embedder, limited to
 * EMBEDDER_CONCURRENCY calls at a time, embeds every email once for all parts: `shared` is the
 * embedder as sharedEmbedder() wraps it.
 */
export function buildIndex(config: Config, pool: Pool, messages: StoredEmails, audit: AuditLog, shared?: Embedder): VectorIndex {
  const { method, minCosine, indexDir, knowledgeWarnPassages } = config.retrieval;
  const knowledgeIndex = {
    dir: indexDir,
    warnPassages: knowledgeWarnPassages,
    async onLarge(passages: number) {
      await audit
        .record({
          // About the installation, not one email (as the poll's mailbox rows).
          emailId: null,
          correlationId: 'knowledge',
          eventType: RETRIEVAL_AUDIT_EVENTS.knowledgeLarge,
          message: `the knowledge index holds ${passages} passages, past RETRIEVAL_KNOWLEDGE_WARN_PASSAGES=${knowledgeWarnPassages}; all are searched, memory grows with them`,
        })
        .catch(() => undefined);
    },
  };
  return createCompositeIndex({
    primary: createFullTextIndex(pool, { embedder: shared, method, minCosine, knowledgeIndex }),
    embedder: shared,
    method,
    // Qdrant needs vectors: the config refuses QDRANT_URL with EMBEDDER=off.
    vector: config.qdrant && shared ? createQdrantIndex({ ...config.qdrant, embedder: shared }) : undefined,
    graph: configuredGraph(config),
    messages,
    personalData: createMariaDbPersonalData(pool),
    account: config.imap.user,
    keyOf(email) {
      const entry = config.mailboxes.find((m) => m.id === email.mailboxId);
      return entry ? isolationKey(entry, email.mailbox ?? '') : null;
    },
    policy: { includeOrganisation: config.context.includeOrganisation, reuseReplies: config.context.reuseReplies },
    // Retrieval goes on with less context; the audit log says what was missing.
    async onDegraded(part, err) {
      const cid = correlationId();
      await audit.record({
        emailId: cid,
        correlationId: cid,
        eventType: RETRIEVAL_AUDIT_EVENTS.degraded,
        errorClass: 'dependency',
        message: `${part} unavailable while retrieving context: ${errorMessage(err)}`,
      });
    },
  });
}

/** Reads the knowledge folder and brings the indexes in line with it. */
export async function syncKnowledgeFolder(
  config: Config,
  pool: Pool,
  index: VectorIndex,
): Promise<(KnowledgeSyncResult & { skipped: string[] }) | null> {
  if (!config.context.knowledgeDir) return null;
  const { files, skipped } = readKnowledgeFolder(config.context.knowledgeDir);
  await pruneKnowledgeLog(pool);
  return { ...(await syncKnowledge({ files, ledger: createMariaDbKnowledgeLedger(pool), index })), skipped };
}
