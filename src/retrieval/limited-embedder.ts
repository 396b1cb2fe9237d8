import type { Embedder, EmbeddingKind } from './embedder.port';

/** EMBEDDER_CONCURRENCY's default: two requests keep a local embedder busy without a queue of big ones. */
export const DEFAULT_EMBEDDER_CONCURRENCY = 2;

/**
 * The embedder as its own cost class inside a worker: at most `concurrency` embed calls are in
 * flight, the rest wait in order. Four index activities embedding a long email each would
 * otherwise hand a local embedder (one inference at a time) four large requests at once, and
 * every retrieval's short query would wait behind all of them.
 */
export function limitEmbedder(embedder: Embedder, concurrency = DEFAULT_EMBEDDER_CONCURRENCY): Embedder {
  const slots = Math.max(1, Math.floor(concurrency));
  let running = 0;
  const waiting: Array<() => void> = [];

  const acquire = (): Promise<void> => {
    if (running < slots) {
      running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const release = (): void => {
    const next = waiting.shift();
    if (next)
      next(); // the slot passes on as it is
    else running -= 1;
  };

  return {
    model: embedder.model,
    async embed(texts: string[], kind: EmbeddingKind): Promise<number[][]> {
      if (texts.length === 0) return [];
      await acquire();
      try {
        return await embedder.embed(texts, kind);
      } finally {
        release();
      }
    },
  };
}
