/**
 * `email-rag doctor`'s probe of the LLM endpoint: one small chat request with
 * `response_format: json_schema`, as every draft makes, through the same client.
 */
import OpenAI, { APIError } from 'openai';
import { errorMessage } from '../platform/errors';
import type { LlmProbe } from './doctor.port';

const PROBE_SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string' } },
  required: ['answer'],
  additionalProperties: false,
} as const;

export async function probeLlm(settings: { baseUrl: string; apiKey: string; model: string; timeoutMs: number }): Promise<LlmProbe> {
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
      response_format: { type: 'json_schema', json_schema: { name: 'doctor_probe', schema: PROBE_SCHEMA, strict: true } },
      temperature: 0,
    });
    const content = res.choices[0]?.message?.content ?? '';
    const model = res.model || settings.model;
    return fitsSchema(content) ? { outcome: 'structured', model, ms: ms() } : { outcome: 'unstructured', model, ms: ms(), content };
  } catch (err) {
    if (err instanceof APIError && typeof err.status === 'number')
      return { outcome: 'refused', status: err.status, message: err.message, ms: ms() };
    return { outcome: 'unreachable', message: errorMessage(err), ms: ms() };
  }
}

function fitsSchema(content: string): boolean {
  try {
    const parsed = JSON.parse(content) as unknown;
    return typeof parsed === 'object' && parsed !== null && typeof (parsed as { answer?: unknown }).answer === 'string';
  } catch {
    return false;
  }
}
