/**
 * What the LLM endpoint's answers mean, for `email-rag llm check` and `email-rag doctor`'s LLM part:
 * one verdict per question (structured output, JSON mode, context window) with the fix of each
 * that is not ok. Pure: the probes (llm-probe.openai.ts, llm-server.http.ts) ask, this judges.
 */
import { DOCTOR_VERDICTS, type DoctorVerdict } from '../platform/contract';

/** `json_schema`: what every draft asks for. `json_object`: the older JSON mode, asked as a hint. */
export type ProbeFormat = 'json_schema' | 'json_object';

/** How the LLM endpoint took one small structured-output request. */
export type LlmProbe =
  | { outcome: 'structured'; model: string; ms: number }
  /** It answered, but not with JSON of the schema: it ignores `response_format`. */
  | { outcome: 'unstructured'; model: string; ms: number; content: string }
  /** It refused the request (HTTP status and message). */
  | { outcome: 'refused'; status: number; message: string; ms: number }
  /** No answer: connection refused, DNS, timeout. */
  | { outcome: 'unreachable'; message: string; ms: number };

/** The context window the server reported: the one it runs with, or only the model's trained size. */
export interface ContextReport {
  tokens: number;
  source: string;
  kind: 'runtime' | 'trained';
}

/** What one question found; the shape of a doctor finding. */
export interface LlmFinding {
  verdict: DoctorVerdict;
  detail: string;
  fix?: string;
}

const ok = (detail: string): LlmFinding => ({ verdict: DOCTOR_VERDICTS.ok, detail });
const warn = (detail: string, fix: string): LlmFinding => ({ verdict: DOCTOR_VERDICTS.warn, detail, fix });
const fail = (detail: string, fix: string): LlmFinding => ({ verdict: DOCTOR_VERDICTS.fail, detail, fix });

export const STRUCTURED_OUTPUT_FIX =
  'use a server and model with structured outputs (OpenAI gpt-4o-mini or newer, vLLM, llama.cpp server, Ollama 0.5 or newer; docs/models.md)';

/** The verdict on the `json_schema` request, the one every draft makes. */
export function llmFinding(llm: { baseUrl?: string; model: string; timeoutMs: number }, p: LlmProbe): LlmFinding {
  const at = `${llm.model} at ${llm.baseUrl ?? '?'}`;
  switch (p.outcome) {
    case 'structured': {
      const line = `${p.model} at ${llm.baseUrl ?? '?'}: structured output (json_schema) ok, answered in ${p.ms} ms`;
      if (p.ms > llm.timeoutMs / 2)
        return warn(
          `${line}, over half of LLM_TIMEOUT_MS (${llm.timeoutMs} ms)`,
          'raise LLM_TIMEOUT_MS or use a faster model: a draft that outlasts it goes to a person',
        );
      return ok(line);
    }
    case 'unstructured':
      return fail(
        `${at} answered without JSON of the requested schema (${p.content.slice(0, 60)}): it ignores response_format json_schema, so every draft would end in manual review`,
        STRUCTURED_OUTPUT_FIX,
      );
    case 'refused':
      return refusedFinding(at, p);
    case 'unreachable':
      // The client's words for its own timeout: the server may be there, only slower than the setting.
      if (/timed out/i.test(p.message))
        return fail(
          `${at} does not answer within LLM_TIMEOUT_MS (${llm.timeoutMs} ms): ${p.message}`,
          'raise LLM_TIMEOUT_MS (a draft takes several times this small answer), use a faster model, or check that the server is not stuck',
        );
      return fail(`${at} does not answer: ${p.message}`, 'start the LLM server, or correct LLM_BASE_URL (usually ending in /v1)');
  }
}

function refusedFinding(at: string, p: Extract<LlmProbe, { outcome: 'refused' }>): LlmFinding {
  // The client's message starts with the status again: say it once.
  const said = `HTTP ${p.status}: ${(p.message.split('\n')[0] ?? '').replace(/^\d{3} /, '')}`;
  if (p.status === 401 || p.status === 403) return fail(`${at} refused the key (${said})`, 'set LLM_API_KEY to a key the server accepts');
  if (p.status === 404)
    return fail(
      `${at}: no such model or path (${said})`,
      'set LLM_MODEL to a model the server serves, and LLM_BASE_URL to its /v1 address',
    );
  if (p.status === 429) return warn(`${at} is rate limited (${said})`, 'raise the quota, or expect drafts to wait for retries');
  if (p.status >= 500) return fail(`${at} failed (${said})`, 'read the LLM server log');
  return fail(
    `${at} refuses response_format json_schema (${said}): every draft would fail permanently`,
    `${STRUCTURED_OUTPUT_FIX}, or unset LLM_BASE_URL for the offline drafter`,
  );
}

/**
 * The JSON mode question: only a hint. Drafts need `json_schema`; a server that has JSON mode but
 * refuses the schema usually needs a newer version or a flag, not another server.
 */
export function jsonModeFinding(p: LlmProbe, schema: LlmProbe): LlmFinding {
  const schemaWorks = schema.outcome === 'structured';
  // No answer, a wrong key, model or path: the endpoint is the problem, not the output format.
  if (schema.outcome === 'unreachable' || (schema.outcome === 'refused' && ![400, 422].includes(schema.status)))
    return {
      verdict: schema.outcome === 'refused' && schema.status === 429 ? DOCTOR_VERDICTS.warn : DOCTOR_VERDICTS.fail,
      detail: 'JSON mode (json_object) not judged: see json_schema',
    };
  if (p.outcome === 'structured') {
    const line = `JSON mode (json_object) ok, answered in ${p.ms} ms`;
    if (schemaWorks) return ok(line);
    return warn(
      `${line}, but not json_schema: the server can constrain output, only not to the drafts' schema`,
      'update the server, or start it with schema support (llama.cpp: llama-server --jinja; vLLM: guided decoding; Ollama 0.5 or newer); docs/models.md',
    );
  }
  const why = p.outcome === 'refused' ? `refused (HTTP ${p.status})` : p.outcome === 'unstructured' ? 'answered without JSON' : 'no answer';
  // JSON mode is not needed when the schema works; saying "fail" would only confuse.
  if (schemaWorks) return ok(`JSON mode (json_object) ${why}; not needed, json_schema works`);
  return fail(`JSON mode (json_object) ${why} too: the server has no structured output at all`, STRUCTURED_OUTPUT_FIX);
}

/** Characters a token of mail text takes, roughly (fewer in German than in English: the lower bound). */
export const CHARS_PER_TOKEN = 4;
/** The instructions and a typical mail around the context, in characters. */
export const PROMPT_CHARS = 4_000;
/** Tokens kept for the answer (subject, body, fields). */
export const ANSWER_TOKENS = 1_000;

/**
 * Tokens a draft takes with `contextChars` of retrieved context, `exampleChars` of approved replies
 * as examples (DRAFT_EXAMPLES × DRAFT_EXAMPLE_CHARS at most) and a typical mail.
 */
export function tokensForDraft(contextChars: number, exampleChars = 0): number {
  return Math.ceil((contextChars + exampleChars + PROMPT_CHARS) / CHARS_PER_TOKEN) + ANSWER_TOKENS;
}

/** The largest LLM_CONTEXT_CHARS that fits `tokens` with a typical mail (0 when not even the mail does). */
export function contextCharsFor(tokens: number): number {
  return Math.max(0, Math.floor(((tokens - ANSWER_TOKENS) * CHARS_PER_TOKEN - PROMPT_CHARS) / 1_000) * 1_000);
}

/** Does LLM_CONTEXT_CHARS (with the examples beside it) fit the window the server reported? */
export function contextFinding(contextChars: number, reported: ContextReport | { unknown: string }, exampleChars = 0): LlmFinding {
  const beside = exampleChars > 0 ? ` and ${exampleChars} characters of examples (DRAFT_EXAMPLES × DRAFT_EXAMPLE_CHARS)` : '';
  const needs = `LLM_CONTEXT_CHARS ${contextChars}${beside} needs about ${tokensForDraft(contextChars, exampleChars)} tokens with a typical mail`;
  if ('unknown' in reported) return ok(`not reported by the server (${reported.unknown}); ${needs}`);
  const seen = `${reported.tokens} tokens (${reported.source})`;
  // The examples come first off the window: what is left is the context's.
  const fits = Math.max(0, Math.floor((contextCharsFor(reported.tokens) - exampleChars) / 1_000) * 1_000);
  if (reported.kind === 'trained')
    return ok(
      `the model was trained for ${seen}; the window the server runs with is not reported (Ollama: OLLAMA_CONTEXT_LENGTH); ${needs}`,
    );
  if (tokensForDraft(contextChars, exampleChars) > reported.tokens) {
    const larger = 'start the server with a larger context (llama.cpp --ctx-size, vLLM --max-model-len)';
    return warn(
      `${seen}: ${needs}, more than the server takes: long mails are refused or cut`,
      fits > 0
        ? `set LLM_CONTEXT_CHARS=${fits}${exampleChars > 0 ? ' (or fewer DRAFT_EXAMPLES)' : ''}, or ${larger}`
        : `${larger}: a typical mail alone leaves no room for context`,
    );
  }
  return ok(`${seen}; ${needs}${fits > contextChars * 2 ? ` (up to LLM_CONTEXT_CHARS=${fits} would fit)` : ''}`);
}

/** `email-rag llm check`'s result (its --json). */
export interface LlmCheck {
  ok: boolean;
  baseUrl: string;
  /** LLM_MODEL, as configured. */
  model: string;
  /** The model name the server answered with, when it answered. */
  servedModel?: string;
  timeoutMs: number;
  contextChars: number;
  /** The most characters of approved replies a prompt carries as examples (0: none). */
  exampleChars: number;
  jsonSchema: LlmProbe;
  jsonObject: LlmProbe;
  context: ContextReport | { unknown: string };
  findings: Array<LlmFinding & { part: 'json_schema' | 'json_object' | 'context' }>;
}

export function llmCheck(
  llm: { baseUrl: string; model: string; timeoutMs: number; contextChars: number; exampleChars?: number },
  answers: { jsonSchema: LlmProbe; jsonObject: LlmProbe; context: ContextReport | { unknown: string } },
): LlmCheck {
  const findings: LlmCheck['findings'] = [
    { part: 'json_schema', ...llmFinding(llm, answers.jsonSchema) },
    { part: 'json_object', ...jsonModeFinding(answers.jsonObject, answers.jsonSchema) },
    { part: 'context', ...contextFinding(llm.contextChars, answers.context, llm.exampleChars ?? 0) },
  ];
  const served =
    'model' in answers.jsonSchema ? answers.jsonSchema.model : 'model' in answers.jsonObject ? answers.jsonObject.model : undefined;
  return {
    ok: findings.every((f) => f.verdict !== DOCTOR_VERDICTS.fail),
    ...llm,
    exampleChars: llm.exampleChars ?? 0,
    ...(served ? { servedModel: served } : {}),
    ...answers,
    findings,
  };
}

/** One line per question, the fix beneath one that is not ok, and the closing verdict. */
export function renderLlmCheck(c: LlmCheck): string {
  const lines = [`llm: ${c.model} at ${c.baseUrl} (LLM_TIMEOUT_MS ${c.timeoutMs})`];
  for (const f of c.findings) {
    lines.push(`${f.part.padEnd(11)}  ${f.verdict.padEnd(4)}  ${f.detail}`);
    if (f.verdict !== DOCTOR_VERDICTS.ok && f.fix) lines.push(`${' '.repeat(19)}fix: ${f.fix}`);
  }
  lines.push(c.ok ? 'drafts can use this endpoint: exit 0' : 'drafts cannot use this endpoint: exit 1');
  return lines.join('\n');
}
