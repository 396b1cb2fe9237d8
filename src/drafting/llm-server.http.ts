/**
 * What an OpenAI-compatible server says about the context window of the model it serves. There is
 * no standard field: llama.cpp's server reports the window it runs with at `/props`, vLLM its
 * `max_model_len` in `/v1/models`, llama.cpp there only the trained size, and Ollama the trained
 * size at `/api/show` (it runs with OLLAMA_CONTEXT_LENGTH, or its default, whatever the model
 * could take). OpenAI and Azure say nothing. Each question is short and may fail: silence is an
 * answer ("not reported").
 */
import { errorMessage } from '../platform/errors';
import type { ContextReport } from './llm-check';
import type { LlmEndpoint } from './llm-probe.openai';

const ASK_MS = 5_000;

async function getJson(url: string, apiKey: string, init: { method?: string; body?: unknown } = {}): Promise<unknown> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${apiKey}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
    signal: AbortSignal.timeout(ASK_MS),
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return (await res.json()) as unknown;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined);

/** The server's root: `/props` and `/api/show` live beside `/v1`, not under it. */
function rootOf(baseUrl: string): string {
  return baseUrl.replace(/(?<!\/)\/+$/, '').replace(/\/v1$/, '');
}

type Asker = (e: LlmEndpoint) => Promise<ContextReport | undefined>;

const llamaCppProps: Asker = async (e) => {
  const props = (await getJson(`${rootOf(e.baseUrl)}/props`, e.apiKey)) as { default_generation_settings?: { n_ctx?: unknown } };
  const tokens = num(props.default_generation_settings?.n_ctx);
  return tokens ? { tokens, source: 'llama.cpp /props n_ctx', kind: 'runtime' } : undefined;
};

const openAiModels: Asker = async (e) => {
  const list = (await getJson(`${e.baseUrl.replace(/(?<!\/)\/+$/, '')}/models`, e.apiKey)) as {
    data?: Array<{ id?: string; max_model_len?: unknown; meta?: { n_ctx_train?: unknown } }>;
  };
  const entry = list.data?.find((m) => m.id === e.model) ?? (list.data?.length === 1 ? list.data[0] : undefined);
  const vllm = num(entry?.max_model_len);
  if (vllm) return { tokens: vllm, source: '/v1/models max_model_len', kind: 'runtime' };
  const trained = num(entry?.meta?.n_ctx_train);
  return trained ? { tokens: trained, source: '/v1/models meta.n_ctx_train', kind: 'trained' } : undefined;
};

const ollamaShow: Asker = async (e) => {
  const shown = (await getJson(`${rootOf(e.baseUrl)}/api/show`, e.apiKey, { method: 'POST', body: { model: e.model } })) as {
    model_info?: Record<string, unknown>;
  };
  const key = Object.keys(shown.model_info ?? {}).find((k) => k.endsWith('.context_length'));
  const tokens = key ? num(shown.model_info?.[key]) : undefined;
  return tokens ? { tokens, source: `Ollama /api/show ${key}`, kind: 'trained' } : undefined;
};

/** The first report of the three servers' ways, or the reasons none answered. */
export async function askContextSize(e: LlmEndpoint): Promise<ContextReport | { unknown: string }> {
  const misses: string[] = [];
  for (const [what, ask] of [
    ['/props', llamaCppProps],
    ['/v1/models', openAiModels],
    ['/api/show', ollamaShow],
  ] as const) {
    try {
      const found = await ask(e);
      if (found) return found;
      misses.push(`${what}: no size`);
    } catch (err) {
      misses.push(`${what}: ${errorMessage(err)}`);
    }
  }
  return { unknown: misses.join('; ') };
}
