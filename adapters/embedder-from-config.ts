import type { Config } from '../lib/config';
import type { Embedder } from '../ports/embedder';
import { createOpenAiEmbedder } from './openai-embedder';

/**
 * The embedder the reports (knowledge gaps) use, from the config: the same OpenAI-compatible
 * endpoint and model as indexing; null when none is configured.
 */
export function embedderFromConfig(config: Config): Embedder | null {
  if (!config.embeddingBaseUrl) return null;
  return createOpenAiEmbedder({
    baseUrl: config.embeddingBaseUrl,
    apiKey: config.llm.apiKey,
    model: config.llm.embeddingModel,
    timeoutMs: config.llm.timeoutMs,
  });
}
