import { createOpenAiEmbedder } from '../../src/retrieval/embedder.openai';
import type { EmbeddingInputType } from '../../src/config';
import type { Embedder, EmbeddingKind } from '../../src/retrieval/embedder.port';

/** Time spent embedding, per kind of text: the eval reports it per passage and per question. */
export interface EmbeddingClock {
  texts: Record<EmbeddingKind, number>;
  ms: Record<EmbeddingKind, number>;
}

export interface TimedEmbedder extends Embedder {
  readonly clock: EmbeddingClock;
}

/** What the eval needs to know of a server it started (test/eval/embedder-candidates.ts). */
export interface EmbeddingServer {
  baseUrl: string;
  model: string;
  inputType: EmbeddingInputType;
}

/** The product's embedder (the OpenAI-compatible adapter) for a server the eval started, timed. */
export function createEvalEmbedder(server: EmbeddingServer): TimedEmbedder {
  const inner = createOpenAiEmbedder({
    baseUrl: server.baseUrl,
    apiKey: 'not-needed',
    model: server.model,
    timeoutMs: 60_000,
    inputType: server.inputType,
  });
  const clock: EmbeddingClock = { texts: { query: 0, passage: 0 }, ms: { query: 0, passage: 0 } };
  return {
    model: server.model,
    clock,
    async embed(texts: string[], kind: EmbeddingKind): Promise<number[][]> {
      const t0 = process.hrtime.bigint();
      const vectors = await inner.embed(texts, kind);
      clock.ms[kind] += Number(process.hrtime.bigint() - t0) / 1e6;
      clock.texts[kind] += texts.length;
      return vectors;
    },
  };
}
