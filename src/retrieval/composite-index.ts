import { FAILURE_TYPES } from '../platform/contract';
import type {
  DraftContextItem,
  ContextScope,
  EmbeddedPassages,
  IndexableEmail,
  ProbeVector,
  VectorBackfill,
  VectorIndex,
} from './vector-index.port';
import type { StoredEmail, StoredEmails } from './stored-emails.port';
import type { IsolationKey } from '../mailboxes';
import type { ThreadGraph } from './thread-graph.port';
import type { Embedder } from './embedder.port';
import type { RetrievalMethod } from './hybrid-ranking';
import { emailPassages, vectorProbe } from './passages';
import { contextScope, DEFAULT_CONTEXT_POLICY, normaliseAddress, sameCorrespondent, type ContextPolicy } from './context-scope';
import { DependencyError, errorMessage } from '../platform/errors';
import { organisationDomain } from './organisation';
import { maskPersonalData } from './mask-personal-data';
import type { PersonalDataLookup } from './personal-data.port';

export interface CompositeIndexParts {
  /** The embedded full-text index: always there, its failure fails the step. */
  primary: VectorIndex;
  /** Qdrant, when configured: optional, its failure degrades to partially_indexed. */
  vector?: VectorIndex;
  /**
   * Embeds each email's passages once (one call) for the primary's rows and the vector store's
   * points, and each new mail once for retrieval. Optional: without it nothing is embedded here.
   * Down at index time: the primary is written without vectors and the step degrades (partially_indexed).
   */
  embedder?: Embedder;
  /** RETRIEVAL_METHOD: with `words` and no vector store, retrieval embeds nothing. */
  method?: RetrievalMethod;
  /** ArangoDB, when configured: optional, likewise. */
  graph?: ThreadGraph;
  /** Reads the text of graph-related emails for the context, and whom our sent replies went to. */
  messages: StoredEmails;
  /** The account of entries that name none (the default mailbox's): part of the isolation key. */
  account?: string;
  /**
   * The isolation key of a stored email (its mailbox's team, or account and folder), to check what
   * the graph names; null when its mailbox is unknown (never shown). Without it: the email's folder.
   */
  keyOf?(email: StoredEmail): IsolationKey | null;
  /** CONTEXT_INCLUDE_ORGANISATION and CONTEXT_REUSE_REPLIES. */
  policy?: ContextPolicy;
  /**
   * What the store knows about the people our replies to others went to: those replies are masked
   * by it as well as by patterns. Without it: patterns only.
   */
  personalData?: PersonalDataLookup;
  /** Told about every optional part that failed, so the caller can audit it. */
  onDegraded(part: string, err: unknown): Promise<void>;
}

const RANK: Record<DraftContextItem['kind'], number> = { attachment: 0, thread: 0, similar: 1, knowledge: 2, sender: 3, own_reply: 4 };
const GRAPH_LIMIT = 3;

/** The email a sent reply answered: our sent replies are indexed as `<email id>:draft:<n>:sent`. */
export function answeredEmailId(sentId: string): string | null {
  const m = /^(.*):draft:\d+:sent$/.exec(sentId);
  return m?.[1] ?? null;
}

/**
 * The index the pipeline uses: the embedded full-text index plus the optional vector store and
 * graph. Writing: the primary must succeed; an optional part that fails makes the step fail with a
 * DependencyError after the primary is written, so retries and finally `partially_indexed` and the
 * re-index sync take over. Reading: what the optional parts cannot give is simply missing. Every
 * part gets the same scope (docs/pipeline.md, "Whose data a draft may see"); what the graph names is checked
 * against it once more, because its text is read from the message store.
 */
export function createCompositeIndex(parts: CompositeIndexParts): VectorIndex {
  const names = [parts.primary.name, ...(parts.vector ? [parts.vector.name] : []), ...(parts.graph ? ['arangodb'] : [])];
  const policy = parts.policy ?? DEFAULT_CONTEXT_POLICY;

  /** Stamps the account and, for our sent replies, the correspondent they went to. */
  async function complete(email: IndexableEmail): Promise<IndexableEmail> {
    const account = email.account ?? parts.account ?? '';
    if (email.direction !== 'out' || (email.toAddresses?.length ?? 0) > 0) return { ...email, account };
    const answered = answeredEmailId(email.emailId);
    const original = answered ? await parts.messages.getEmail(answered) : null;
    const to = original?.replyTo?.address ?? original?.from?.address;
    return { ...email, account, toAddresses: to ? [to] : [] };
  }

  async function graphItems(email: IndexableEmail, scope: ContextScope): Promise<DraftContextItem[]> {
    if (!parts.graph) return [];
    const items: DraftContextItem[] = [];
    const related = await parts.graph.related(
      {
        emailId: email.emailId,
        fromAddress: email.fromAddress,
        account: scope.account,
        mailbox: scope.mailbox,
        includeOrganisation: scope.organisation !== null,
      },
      GRAPH_LIMIT,
    );
    for (const r of related) {
      const other = await parts.messages.getEmail(r.emailId);
      if (!other) continue;
      const key = parts.keyOf ? parts.keyOf(other) : { account: scope.account, mailbox: other.mailbox ?? '' };
      const from = normaliseAddress(other.from?.address ?? '');
      if (!key || key.account !== scope.account || key.mailbox !== scope.mailbox) continue;
      if (!sameCorrespondent(scope, from, organisationDomain(from))) continue;
      items.push({ sourceId: other.id, kind: 'sender', text: `${other.subject}\n${other.text.slice(0, 800)}`, title: other.subject });
    }
    return items;
  }

  /** The email's passages with their vectors, or with none (and the failure noted) when the embedder is down. */
  async function embedPassages(email: IndexableEmail, failed: string[]): Promise<EmbeddedPassages | undefined> {
    const { embedder } = parts;
    if (!embedder) return undefined;
    const passages = emailPassages(email);
    try {
      return { model: embedder.model, passages, vectors: await embedder.embed(passages, 'passage') };
    } catch (err) {
      failed.push(`embedder: ${errorMessage(err)}`);
      return { model: embedder.model, passages, vectors: null };
    }
  }

  /** The new mail as a vector for every index; null (words only, audited) when the embedder is down. */
  async function embedProbe(email: IndexableEmail): Promise<ProbeVector | undefined> {
    const { embedder } = parts;
    if (!embedder || (parts.method === 'words' && !parts.vector)) return undefined;
    const probe = vectorProbe(email);
    if (!probe) return { model: embedder.model, vector: null };
    try {
      const [vector] = await embedder.embed([probe], 'query');
      return { model: embedder.model, vector: vector ?? null };
    } catch (err) {
      await parts.onDegraded('embedder', err);
      return { model: embedder.model, vector: null };
    }
  }

  /** Our replies to others masked once more, by their recipient's stored names, numbers and lines. */
  async function maskByWhatIsKnown(items: DraftContextItem[]): Promise<DraftContextItem[]> {
    const ids = items.filter((i) => i.kind === 'own_reply').map((i) => i.sourceId);
    if (!parts.personalData || ids.length === 0) return items;
    const known = await parts.personalData.knownFor(ids);
    return items.map((i) => {
      const k = i.kind === 'own_reply' ? known.get(i.sourceId) : undefined;
      if (!k) return i;
      return { ...i, text: maskPersonalData(i.text, k), ...(i.title ? { title: maskPersonalData(i.title, k) } : {}) };
    });
  }

  return {
    name: names.join('+'),
    async index(input: IndexableEmail): Promise<void> {
      const email = await complete(input);
      const failed: string[] = [];
      const embedded = await embedPassages(email, failed);
      // The embedder must not fail the MariaDB write: the passages go in, with or without vectors.
      await parts.primary.index(email, embedded);
      if (parts.vector) {
        await parts.vector.index(email, embedded).catch((err: unknown) => failed.push(`${parts.vector!.name}: ${errorMessage(err)}`));
      }
      if (parts.graph && email.direction !== 'knowledge') {
        await parts.graph
          .record({
            emailId: email.emailId,
            threadId: email.threadId,
            account: email.account,
            mailbox: email.mailbox,
            direction: email.direction,
            fromAddress: email.fromAddress,
            fromName: email.fromName ?? '',
            toAddresses: email.toAddresses ?? [],
            subject: email.subject,
            date: email.date,
            inReplyToEmailId: null,
          })
          .catch((err: unknown) => failed.push(`arangodb: ${errorMessage(err)}`));
      }
      if (failed.length > 0) {
        throw new DependencyError(`indexed in ${parts.primary.name}, but not in ${failed.join('; ')}`, FAILURE_TYPES.indexDegraded);
      }
    },

    async backfillVectors(limit: number): Promise<VectorBackfill> {
      // The primary holds every passage; the vector store is completed email by email (the re-index sync).
      if (!parts.primary.backfillVectors) return { sources: [], passages: 0, more: false };
      try {
        return await parts.primary.backfillVectors(limit);
      } catch (err) {
        throw new DependencyError(`vectors not backfilled in ${parts.primary.name}: ${errorMessage(err)}`, FAILURE_TYPES.indexDegraded, {
          cause: err,
        });
      }
    },

    /** Erasure must reach every part: a part that fails fails the call (the erasure is re-run). */
    async forgetEmails(emailIds: string[], correspondent?: string): Promise<void> {
      await parts.primary.forgetEmails?.(emailIds, correspondent);
      await parts.vector?.forgetEmails?.(emailIds, correspondent);
      await parts.graph?.forget?.(emailIds, correspondent ? [correspondent] : []);
    },

    async remove(sourceId: string): Promise<void> {
      await parts.primary.remove?.(sourceId);
      if (parts.vector?.remove) {
        try {
          await parts.vector.remove(sourceId);
        } catch (err) {
          throw new DependencyError(
            `removed from ${parts.primary.name}, but not from ${parts.vector.name}: ${errorMessage(err)}`,
            FAILURE_TYPES.indexDegraded,
          );
        }
      }
    },

    async retrieve(input: IndexableEmail, limit: number, given?: ContextScope): Promise<DraftContextItem[]> {
      const email = { ...input, account: input.account ?? parts.account ?? '' };
      const scope = given ?? contextScope(email, policy);
      const probe = await embedProbe(email);
      const items = await parts.primary.retrieve(email, limit, scope, probe);
      if (parts.vector) {
        try {
          items.push(...(await parts.vector.retrieve(email, limit, scope, probe)));
        } catch (err) {
          await parts.onDegraded(parts.vector.name, err);
        }
      }
      try {
        items.push(...(await graphItems(email, scope)));
      } catch (err) {
        await parts.onDegraded('arangodb', err);
      }
      // Thread first, then the rest; one entry per source passage. An index that ignored the
      // setting does not bring our replies to others back in.
      const seen = new Set<string>();
      const masked = await maskByWhatIsKnown(items);
      return masked
        .filter((i) => {
          if (i.kind === 'own_reply' && scope.reuseReplies === 'off') return false;
          const key = `${i.sourceId}\n${i.text}`;
          if (seen.has(key)) return false;
          seen.add(key);
          return true;
        })
        .sort((a, b) => RANK[a.kind] - RANK[b.kind])
        .slice(0, limit * 2);
    },
  };
}
