import { FAILURE_TYPES, httpFailureType } from '../platform/contract';
import { contextCollector } from './context-collector';
import { createHash } from 'node:crypto';
// The client ships its types as ESM only; the value is loaded with import() below.
import type { QdrantClient, Schemas } from '@qdrant/js-client-rest' with { 'resolution-mode': 'import' };
import { DependencyError, EmailRagError, PermanentError, TransientError } from '../platform/errors';
import { classifyHttpStatus } from '../platform/http-errors';
import { emailPassages, vectorProbe } from './passages';
import type { DraftContextItem, ContextScope, EmbeddedPassages, IndexableEmail, ProbeVector, VectorIndex } from './vector-index.port';
import { detectLanguage } from '../platform/language';
import type { Embedder } from './embedder.port';
import { contextScope, entryCorrespondent, knowledgeSourceId, ownReplyItem } from './context-scope';

export interface QdrantIndexSettings {
  url: string;
  apiKey?: string;
  collection: string;
  embedder: Embedder;
  /** Per request; the client's own default is five minutes, far beyond any activity timeout. */
  timeoutMs?: number;
}

export type QdrantIndex = VectorIndex & {
  /** Creates the collection and its payload indexes if missing; costs one embedding call to learn the size. */
  ensureCollection(): Promise<void>;
};

const KEYWORD_FIELDS = [
  'email_id',
  'thread_id',
  'account',
  'mailbox',
  'direction',
  'from_address',
  'correspondent',
  'organisation',
] as const;
// Pruning filters on idx, and Qdrant's strict mode (on by default in Qdrant Cloud) refuses
// updates filtered by an unindexed field.
const INTEGER_FIELDS = ['idx'] as const;
const UPSERT_CHUNK = 64;
// Threads are short; one page is enough and lets us order by date, which scroll cannot do unindexed.
const THREAD_SCAN_LIMIT = 256;
const KNOWLEDGE_LIMIT = 3;
const OWN_REPLY_LIMIT = 2;
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);

interface Passage {
  emailId: string;
  idx: number;
  date: string | null;
  text: string;
  subject: string;
}

/**
 * The point id of passage `idx` of an email: a UUID built from sha256, so re-indexing overwrites
 * the same points instead of adding new ones.
 */
export function passagePointId(emailId: string, idx: number): string {
  const h = createHash('sha256').update(`${emailId}\u0000${idx}`).digest().subarray(0, 16);
  h[6] = ((h[6] ?? 0) & 0x0f) | 0x80; // version 8, "custom" (RFC 9562)
  h[8] = ((h[8] ?? 0) & 0x3f) | 0x80; // RFC 4122 variant
  const x = h.toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

function isConnectionFailure(err: unknown): boolean {
  const e = err as { message?: string; code?: string; cause?: { code?: string; message?: string } };
  if (err instanceof TypeError && /fetch failed/i.test(e.message ?? '')) return true;
  return CONNECTION_CODES.has(e?.code ?? '') || CONNECTION_CODES.has(e?.cause?.code ?? '');
}

function httpStatus(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** Maps what the Qdrant client throws onto the product's error classes. */
function classifyQdrantError(err: unknown, doing: string): Error {
  if (err instanceof EmailRagError) return err; // the embedder's, already classified
  const e = err as {
    name?: string;
    message?: string;
    data?: { status?: { error?: string } };
    headers?: { get?(name: string): string | null };
    retry_after?: number;
    cause?: { message?: string };
  };
  // Class names, not instanceof: the client may be loaded twice (its ESM and CJS builds).
  if (e?.name === 'QdrantClientTimeoutError') {
    return new TransientError(`Qdrant did not answer in time while ${doing}`, FAILURE_TYPES.qdrantTimeout, { cause: err });
  }
  if (e?.name === 'QdrantClientResourceExhaustedError') {
    const retryAfterMs = typeof e.retry_after === 'number' ? e.retry_after * 1000 : undefined;
    return new TransientError(`Qdrant is rate limiting (${doing}): ${e.message}`, httpFailureType('qdrant', 429), {
      cause: err,
      retryAfterMs,
    });
  }
  const status = httpStatus(err);
  if (status !== undefined) {
    const detail = e.data?.status?.error ?? e.message ?? '';
    return classifyHttpStatus('qdrant', status, `${doing}: ${detail}`, e.headers?.get?.('retry-after'), err);
  }
  if (e?.name === 'QdrantClientUnexpectedResponseError') {
    return new TransientError(`Qdrant answered unexpectedly while ${doing}: ${e.message}`, FAILURE_TYPES.qdrantUnexpectedResponse, {
      cause: err,
    });
  }
  if (isConnectionFailure(err)) {
    const why = e.cause?.message ? `${e.message} (${e.cause.message})` : e.message;
    return new DependencyError(`Qdrant unreachable while ${doing}: ${why}`, FAILURE_TYPES.qdrantUnavailable, { cause: err });
  }
  return err instanceof Error ? err : new Error(String(err));
}

function match(key: string, value: string): Schemas['FieldCondition'] {
  return { key, match: { value } };
}

function toPassage(payload: Record<string, unknown> | null | undefined): Passage | null {
  if (!payload || typeof payload.email_id !== 'string' || typeof payload.text !== 'string') return null;
  return {
    emailId: payload.email_id,
    idx: typeof payload.idx === 'number' ? payload.idx : 0,
    date: typeof payload.date === 'string' ? payload.date : null,
    text: payload.text,
    subject: typeof payload.subject === 'string' ? payload.subject : '',
  };
}

/** Newest email first (undated last), passages of one email in their order. */
function byRecency(a: Passage, b: Passage): number {
  if (a.date !== b.date) return a.date === null ? 1 : b.date === null ? -1 : a.date < b.date ? 1 : -1;
  return a.emailId === b.emailId ? a.idx - b.idx : a.emailId < b.emailId ? -1 : 1;
}

/**
 * Retrieval over Qdrant: passages embedded with `embedder`, one point per passage. Every query is
 * filtered by payload to the account and mailbox, and mail to the correspondent (or their
 * organisation); our replies to others come back masked. The collection is created on first use.
 */
export function createQdrantIndex(settings: QdrantIndexSettings): QdrantIndex {
  const { collection, embedder } = settings;
  let clientPromise: Promise<QdrantClient> | undefined;
  let setup: Promise<number> | undefined;

  function client(): Promise<QdrantClient> {
    clientPromise ??= import('@qdrant/js-client-rest').then(
      ({ QdrantClient: Client }) =>
        new Client({ url: settings.url, apiKey: settings.apiKey, timeout: settings.timeoutMs, checkCompatibility: false }),
    );
    return clientPromise;
  }

  async function call<T>(doing: string, fn: (c: QdrantClient) => Promise<T>): Promise<T> {
    try {
      return await fn(await client());
    } catch (err) {
      if (httpStatus(err) !== 404) throw classifyQdrantError(err, doing);
      // Dropped behind our back: the next attempt sets the collection up again.
      setup = undefined;
      throw new TransientError(`Qdrant collection "${collection}" vanished while ${doing}`, FAILURE_TYPES.qdrantCollectionMissing, {
        cause: err,
      });
    }
  }

  /** The collection's vector size and indexed fields, or null when it does not exist. */
  async function describe(): Promise<{ size: number; indexed: Set<string> } | null> {
    try {
      const info = await (await client()).getCollection(collection);
      const vectors = info.config.params.vectors as { size?: unknown } | undefined;
      if (typeof vectors?.size !== 'number') {
        throw new PermanentError(
          `Qdrant collection "${collection}" uses named vectors; it was not made by this product`,
          FAILURE_TYPES.qdrantSchema,
        );
      }
      return { size: vectors.size, indexed: new Set(Object.keys(info.payload_schema ?? {})) };
    } catch (err) {
      if (httpStatus(err) === 404) return null;
      throw classifyQdrantError(err, 'reading the collection');
    }
  }

  async function setUp(size: number): Promise<number> {
    let info = await describe();
    if (!info) {
      try {
        await call('creating the collection', (c) => c.createCollection(collection, { vectors: { size, distance: 'Cosine' } }));
      } catch (err) {
        // Another worker may have created it a moment earlier.
        if (!(await describe())) throw err;
      }
      info = (await describe()) ?? { size, indexed: new Set() };
    }
    const wanted = [...KEYWORD_FIELDS.map((f) => [f, 'keyword'] as const), ...INTEGER_FIELDS.map((f) => [f, 'integer'] as const)].filter(
      ([f]) => !info.indexed.has(f),
    );
    for (const [field_name, field_schema] of wanted) {
      await call(`indexing payload field ${field_name}`, (c) => c.createPayloadIndex(collection, { field_name, field_schema, wait: true }));
    }
    return info.size;
  }

  /** Resolves once the collection exists with vectors of `size`; checked once per process. */
  async function ready(size: number): Promise<void> {
    setup ??= setUp(size).catch((err: unknown) => {
      setup = undefined;
      throw err;
    });
    const actual = await setup;
    if (actual !== size) {
      throw new PermanentError(
        `Qdrant collection "${collection}" holds vectors of size ${actual}, but ${embedder.model} gives ${size}: ` +
          'configure another collection or re-create this one',
        FAILURE_TYPES.qdrantVectorSizeMismatch,
      );
    }
  }

  async function exists(): Promise<boolean> {
    return setup !== undefined || (await describe()) !== null;
  }

  async function prune(emailId: string, from: number): Promise<void> {
    await call('pruning old passages', (c) =>
      c.delete(collection, {
        wait: true,
        filter: { must: [match('email_id', emailId), { key: 'idx', range: { gte: from } }] },
      }),
    );
  }

  return {
    name: 'qdrant',

    async ensureCollection(): Promise<void> {
      const [vector] = await embedder.embed(['dimension probe'], 'passage');
      if (!vector) throw new TransientError('embedding service returned no vector', FAILURE_TYPES.embeddingInvalidResponse);
      await ready(vector.length);
    },

    /** `embedded`: the vectors the composite computed once for every index (the same as MariaDB's). */
    async index(email: IndexableEmail, embedded?: EmbeddedPassages): Promise<void> {
      const passages = embedded?.passages ?? emailPassages(email);
      if (passages.length === 0) {
        if (await exists()) await prune(email.emailId, 0);
        return;
      }
      if (embedded && !embedded.vectors) {
        throw new DependencyError('no vectors to store: the embedder was unavailable', FAILURE_TYPES.embeddingUnavailable);
      }
      const vectors = embedded?.vectors ?? (await embedder.embed(passages, 'passage'));
      await ready(vectors[0]?.length ?? 0);
      const base = {
        email_id: email.emailId,
        thread_id: email.threadId,
        account: email.account ?? '',
        mailbox: email.mailbox,
        ...entryCorrespondent(email),
        direction: email.direction,
        from_address: email.fromAddress,
        subject: email.subject,
        date: email.date ? email.date.toISOString() : null,
        language: detectLanguage(`${email.subject}\n${email.text}`),
      };
      const points = passages.map((text, idx) => ({
        id: passagePointId(email.emailId, idx),
        vector: vectors[idx] ?? [],
        payload: { ...base, idx, text },
      }));
      for (let i = 0; i < points.length; i += UPSERT_CHUNK) {
        const chunk = points.slice(i, i + UPSERT_CHUNK);
        await call('storing passages', (c) => c.upsert(collection, { wait: true, points: chunk }));
      }
      await prune(email.emailId, passages.length);
    },

    async forgetEmails(emailIds: string[], correspondent?: string): Promise<void> {
      if (!(await exists())) return;
      const batches: Schemas['Filter'][] = [];
      for (let i = 0; i < emailIds.length; i += UPSERT_CHUNK * 4) {
        batches.push({ must: [{ key: 'email_id', match: { any: emailIds.slice(i, i + UPSERT_CHUNK * 4) } }] });
      }
      // Our sent replies to them and anything else filed under their address.
      if (correspondent) batches.push({ should: [match('correspondent', correspondent), match('from_address', correspondent)] });
      for (const filter of batches) await call('forgetting passages', (c) => c.delete(collection, { wait: true, filter }));
    },

    async remove(sourceId: string): Promise<void> {
      if (await exists()) {
        await call('removing passages', (c) => c.delete(collection, { wait: true, filter: { must: [match('email_id', sourceId)] } }));
      }
    },

    /** `probe`: the new mail embedded once for every index; null (embedder down): the thread only. */
    async retrieve(email: IndexableEmail, limit: number, given?: ContextScope, probeGiven?: ProbeVector): Promise<DraftContextItem[]> {
      if (limit <= 0) return [];
      const s = given ?? contextScope(email);
      const probe = vectorProbe(email);
      const [vector] = probeGiven ? (probeGiven.vector ? [probeGiven.vector] : []) : probe ? await embedder.embed([probe], 'query') : [];
      if (vector) await ready(vector.length);
      else if (!(await exists())) return [];

      const withPayload = ['email_id', 'idx', 'date', 'text', 'subject'];
      const box = [match('account', s.account), match('mailbox', s.mailbox)];
      const notKnowledge = match('direction', 'knowledge');
      // The correspondent, or anyone of their organisation when that is allowed.
      const theirs = [match('correspondent', s.correspondent), ...(s.organisation ? [match('organisation', s.organisation)] : [])];
      const threadPage = await call('reading the thread history', (c) =>
        c.scroll(collection, {
          filter: {
            must: [match('thread_id', email.threadId), ...box],
            must_not: [match('email_id', email.emailId), notKnowledge],
          },
          limit: THREAD_SCAN_LIMIT,
          with_payload: withPayload,
          with_vector: false,
        }),
      );
      const thread = threadPage.points.flatMap((p) => toPassage(p.payload) ?? []).sort(byRecency);

      const nearest = async (doing: string, filter: Schemas['Filter'], n: number): Promise<Passage[]> => {
        if (!vector || n <= 0) return [];
        const found = await call(doing, (c) => c.query(collection, { query: vector, filter, limit: n, with_payload: withPayload }));
        return found.points.flatMap((p) => toPassage(p.payload) ?? []);
      };
      const similar = s.correspondent
        ? await nearest(
            'searching similar passages of the correspondent',
            { must: box, should: theirs, must_not: [match('email_id', email.emailId), match('thread_id', email.threadId), notKnowledge] },
            limit,
          )
        : [];
      const knowledge = await nearest('searching the knowledge folder', { must: [match('direction', 'knowledge')] }, KNOWLEDGE_LIMIT);
      // Our replies to anyone else: reusable wording, never their personal data (masked below).
      const ownReplies =
        s.reuseReplies === 'masked'
          ? await nearest(
              'searching our replies to others',
              { must: [...box, match('direction', 'out')], must_not: [...theirs, match('thread_id', email.threadId)] },
              OWN_REPLY_LIMIT,
            )
          : [];

      const { items, add } = contextCollector();
      const title = (p: Passage) => (p.subject ? { title: p.subject } : {});
      for (const p of thread) add({ sourceId: p.emailId, kind: 'thread', text: p.text, ...title(p) });
      for (const p of similar) add({ sourceId: p.emailId, kind: 'similar', text: p.text, ...title(p) });
      const main = items.splice(0).slice(0, limit);
      items.push(...main);
      for (const p of knowledge) add({ sourceId: knowledgeSourceId(p.emailId, p.idx), kind: 'knowledge', text: p.text, ...title(p) });
      for (const p of ownReplies) add(ownReplyItem(p.emailId, p.text, p.subject));
      return items;
    },
  };
}
