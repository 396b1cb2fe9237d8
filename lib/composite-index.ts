import type { DraftContextItem } from '../ports/drafter';
import type { MessageStore } from '../ports/store';
import type { ThreadGraph } from '../ports/thread-graph';
import type { IndexableEmail, VectorIndex } from '../ports/vector-index';
import { DependencyError, errorMessage } from './errors';

export interface CompositeIndexParts {
  /** The embedded full-text index: always there, its failure fails the step. */
  primary: VectorIndex;
  /** Qdrant, when configured: optional, its failure degrades (seed 001). */
  vector?: VectorIndex;
  /** ArangoDB, when configured: optional, likewise. */
  graph?: ThreadGraph;
  /** Reads the text of graph-related emails for the context. */
  messages: Pick<MessageStore, 'getEmail'>;
  /** Told about every optional part that failed, so the caller can audit it. */
  onDegraded(part: string, err: unknown): Promise<void>;
}

/**
 * The index the pipeline uses: the embedded full-text index plus the optional vector store and
 * graph. Writing: the primary must succeed; an optional part that fails makes the step fail with a
 * DependencyError after the primary is written, so retries and finally `partially_indexed` and the
 * re-index sync take over. Reading: what the optional parts cannot give is simply missing.
 */
export function createCompositeIndex(parts: CompositeIndexParts): VectorIndex {
  const names = [parts.primary.name, ...(parts.vector ? [parts.vector.name] : []), ...(parts.graph ? ['arangodb'] : [])];
  return {
    name: names.join('+'),
    async index(email: IndexableEmail): Promise<void> {
      await parts.primary.index(email);
      const failed: string[] = [];
      if (parts.vector) {
        await parts.vector.index(email).catch((err: unknown) => failed.push(`${parts.vector!.name}: ${errorMessage(err)}`));
      }
      if (parts.graph) {
        await parts.graph
          .record({
            emailId: email.emailId,
            threadId: email.threadId,
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
        throw new DependencyError(`indexed in ${parts.primary.name}, but not in ${failed.join('; ')}`, 'INDEX_DEGRADED');
      }
    },

    async retrieve(email: IndexableEmail, limit: number): Promise<DraftContextItem[]> {
      const items = await parts.primary.retrieve(email, limit);
      if (parts.vector) {
        try {
          items.push(...(await parts.vector.retrieve(email, limit)));
        } catch (err) {
          await parts.onDegraded(parts.vector.name, err);
        }
      }
      if (parts.graph) {
        try {
          for (const r of await parts.graph.related(
            { emailId: email.emailId, fromAddress: email.fromAddress, mailbox: email.mailbox },
            3,
          )) {
            const other = await parts.messages.getEmail(r.emailId);
            if (other) items.push({ sourceId: other.id, kind: 'sender', text: `${other.subject}\n${other.text.slice(0, 800)}` });
          }
        } catch (err) {
          await parts.onDegraded('arangodb', err);
        }
      }
      // Thread first, then the rest; one entry per source passage.
      const seen = new Set<string>();
      const rank: Record<DraftContextItem['kind'], number> = { thread: 0, similar: 1, sender: 2, knowledge: 3, own_reply: 4 };
      return items
        .filter((i) => {
          const key = `${i.sourceId}\n${i.text}`;
          if (seen.has(key)) return false;
          seen.add(key);
          return true;
        })
        .sort((a, b) => rank[a.kind] - rank[b.kind])
        .slice(0, limit * 2);
    },
  };
}
