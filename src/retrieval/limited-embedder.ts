import type { Embedder, EmbeddingKind } from './embedder.port';

/** EMBEDDER_CONCURRENCY's default: two requests keep a local embedder busy without a queue of big ones. */
export const DEFAULT_EMBEDDER_CONCURRENCY = 2;

/** Texts in one merged request at most: what an OpenAI-compatible server takes in one request. */
export const MERGED_TEXTS = 64;

interface Waiting {
  texts: string[];
  kind: EmbeddingKind;
  resolve(vectors: number[][]): void;
  reject(err: unknown): void;
}

/**
 * The embedder as its own cost class inside a worker: at most `concurrency` embed calls are in
 * flight, the rest wait in order. Four index activities embedding a long email each would
 * otherwise hand a local embedder (one inference at a time) four large requests at once, and
 * every retrieval's short query would wait behind all of them.
 *
 * Calls that wait for a slot are sent together: when a slot frees, the first waiting call takes
 * every later waiting call of the same kind along, up to 64 texts, as one request. Under load (many
 * emails indexed and drafted at once) a request then carries the texts of several emails: the
 * local embedder spends 4.6 ms of CPU on a request of one text and 1.9 ms a text in a request of
 * ten (docs/performance.md), and a hosted one counts fewer requests against its rate limit. A
 * call that finds a slot free goes at once, alone. When a merged request fails, each of its calls
 * is asked again alone, so that one call's bad text never fails another's.
 */
export function limitEmbedder(embedder: Embedder, concurrency = DEFAULT_EMBEDDER_CONCURRENCY): Embedder {
  const slots = Math.max(1, Math.floor(concurrency));
  let running = 0;
  const waiting: Waiting[] = [];

  const settle = (call: Waiting, p: Promise<number[][]>): Promise<void> => p.then(call.resolve, call.reject);

  const runBatch = async (batch: Waiting[]): Promise<void> => {
    if (batch.length === 1) return settle(batch[0]!, embedder.embed(batch[0]!.texts, batch[0]!.kind));
    let vectors: number[][];
    try {
      vectors = await embedder.embed(
        batch.flatMap((c) => c.texts),
        batch[0]!.kind,
      );
    } catch {
      for (const call of batch) await settle(call, embedder.embed(call.texts, call.kind));
      return;
    }
    let at = 0;
    for (const call of batch) {
      call.resolve(vectors.slice(at, at + call.texts.length));
      at += call.texts.length;
    }
  };

  /** The first waiting call and the later ones of its kind that fit beside it. */
  const takeBatch = (): Waiting[] => {
    const first = waiting.shift() as Waiting;
    const batch = [first];
    let texts = first.texts.length;
    for (let i = 0; i < waiting.length && texts < MERGED_TEXTS;) {
      const call = waiting[i]!;
      if (call.kind === first.kind && texts + call.texts.length <= MERGED_TEXTS) {
        batch.push(call);
        texts += call.texts.length;
        waiting.splice(i, 1);
      } else i += 1;
    }
    return batch;
  };

  const drain = async (): Promise<void> => {
    // The slot passes from batch to batch while calls wait.
    while (waiting.length > 0) await runBatch(takeBatch());
    running -= 1;
  };

  return {
    model: embedder.model,
    async embed(texts: string[], kind: EmbeddingKind): Promise<number[][]> {
      if (texts.length === 0) return [];
      if (running >= slots) return new Promise((resolve, reject) => waiting.push({ texts, kind, resolve, reject }));
      running += 1;
      try {
        return await embedder.embed(texts, kind);
      } finally {
        void drain();
      }
    },
  };
}
