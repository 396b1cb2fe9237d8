/**
 * One small chat request to the LLM endpoint, through the client and with the settings every draft
 * uses: `email-rag doctor`'s LLM part and `email-rag llm check` both ask it. With `json_schema`
 * (what drafts ask for) the answer must fit the schema; with `json_object` (the older JSON mode,
 * a hint when the first is refused) any JSON object counts.
 */
import OpenAI, { APIError } from 'openai';
import { errorMessage } from '../platform/errors';
import type { LlmProbe, ProbeFormat } from './llm-check';

const PROBE_SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string' } },
  required: ['answer'],
  additionalProperties: false,
} as const;

export interface LlmEndpoint {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
}

export async function probeLlm(settings: LlmEndpoint, format: ProbeFormat = 'json_schema'): Promise<LlmProbe> {
  // Like the drafter: no retries of the client's own, so the time measured is one answer's.
  const client = new OpenAI({ baseURL: settings.baseUrl, apiKey: settings.apiKey, maxRetries: 0, timeout: settings.timeoutMs });
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const res = await client.chat.completions.create({
      model: settings.model,
      messages: [
        { role: 'system', content: 'You answer with a JSON object only.' },
        { role: 'user', content: 'Reply with the JSON object {"answer": "ok"}.' },
      ],
      response_format:
        format === 'json_schema'
          ? { type: 'json_schema', json_schema: { name: 'doctor_probe', schema: PROBE_SCHEMA, strict: true } }
          : { type: 'json_object' },
      temperature: 0,
    });
    const content = res.choices[0]?.message?.content ?? '';
    const model = res.model || settings.model;
    return fits(content, format) ? { outcome: 'structured', model, ms: ms() } : { outcome: 'unstructured', model, ms: ms(), content };
  } catch (err) {
    if (err instanceof APIError && typeof err.status === 'number')
      return { outcome: 'refused', status: err.status, message: err.message, ms: ms() };
    return { outcome: 'unreachable', message: errorMessage(err), ms: ms() };
  }
}

function fits(content: string, format: ProbeFormat): boolean {
  try {
    const parsed = JSON.parse(content) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false;
    return format === 'json_object' || typeof (parsed as { answer?: unknown }).answer === 'string';
  } catch {
    return false;
  }
}
