/** `email-rag llm check`'s verdicts without a server: structured output, JSON mode, the context window, the settings behind them. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config';
import {
  contextCharsFor,
  contextFinding,
  jsonModeFinding,
  llmCheck,
  renderLlmCheck,
  tokensForDraft,
  type LlmProbe,
} from '../../src/drafting/llm-check';
import { summaryModelMs, SUMMARY_STEP_MARGIN_MS } from '../../src/cases/case-summary.activities';
import { withinBudget } from '../../src/email/draft/draft.activities';
import { createCaseTurnActivities } from '../../src/cases/case-turn.activities';

const llm = { baseUrl: 'http://127.0.0.1:8080/v1', model: 'm', timeoutMs: 60_000, contextChars: 8_000 };
const structured: LlmProbe = { outcome: 'structured', model: 'served-name', ms: 40 };
const refused400: LlmProbe = {
  outcome: 'refused',
  status: 400,
  message: "400 Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
  ms: 5,
};

test('json_schema works: exit 0, the served model name, every part said', () => {
  const c = llmCheck(llm, {
    jsonSchema: structured,
    jsonObject: structured,
    context: { tokens: 8192, source: 'llama.cpp /props n_ctx', kind: 'runtime' },
  });
  assert.equal(c.ok, true);
  assert.equal(c.servedModel, 'served-name');
  assert.deepEqual(
    c.findings.map((f) => [f.part, f.verdict]),
    [
      ['json_schema', 'ok'],
      ['json_object', 'ok'],
      ['context', 'ok'],
    ],
  );
  const text = renderLlmCheck(c);
  assert.match(text, /^llm: m at http:\/\/127\.0\.0\.1:8080\/v1 \(LLM_TIMEOUT_MS 60000\)/);
  assert.match(text, /json_schema  ok    served-name at .*: structured output \(json_schema\) ok, answered in 40 ms/);
  assert.match(text, /context      ok    8192 tokens \(llama\.cpp \/props n_ctx\); LLM_CONTEXT_CHARS 8000 needs about 4000 tokens/);
  assert.match(text, /exit 0$/);
});

test('json_schema refused but JSON mode works: exit 1, and the hint says the server needs schema support, not replacing', () => {
  const c = llmCheck(llm, { jsonSchema: refused400, jsonObject: structured, context: { unknown: '/props: HTTP 404' } });
  assert.equal(c.ok, false);
  const [schema, mode, context] = c.findings;
  assert.equal(schema!.verdict, 'fail');
  assert.match(schema!.detail, /refuses response_format json_schema \(HTTP 400: Invalid parameter/);
  assert.equal(mode!.verdict, 'warn');
  assert.match(mode!.fix ?? '', /--jinja/);
  assert.equal(context!.verdict, 'ok');
  assert.match(context!.detail, /not reported by the server \(\/props: HTTP 404\)/);
  assert.match(renderLlmCheck(c), /fix: use a server and model with structured outputs[\s\S]*exit 1$/);
});

test('no structured output at all, an unreachable endpoint, a wrong key: the JSON mode line follows the cause', () => {
  const prose: LlmProbe = { outcome: 'unstructured', model: 'm', ms: 9, content: 'Sure! Here is' };
  assert.equal(jsonModeFinding(prose, prose).verdict, 'fail');
  const down: LlmProbe = { outcome: 'unreachable', message: 'connect ECONNREFUSED 127.0.0.1:1', ms: 1 };
  assert.match(jsonModeFinding(down, down).detail, /not judged: see json_schema/);
  const slow: LlmProbe = { outcome: 'unreachable', message: 'Request timed out.', ms: 300 };
  const late = llmCheck({ ...llm, timeoutMs: 300 }, { jsonSchema: slow, jsonObject: slow, context: { unknown: '-' } }).findings[0]!;
  assert.match(late.detail, /does not answer within LLM_TIMEOUT_MS \(300 ms\): Request timed out\./);
  assert.match(late.fix ?? '', /^raise LLM_TIMEOUT_MS/);
  const key: LlmProbe = { outcome: 'refused', status: 401, message: '401 bad key', ms: 1 };
  const c = llmCheck(llm, { jsonSchema: key, jsonObject: key, context: { unknown: '-' } });
  assert.match(c.findings[0]!.fix ?? '', /LLM_API_KEY/);
  assert.match(c.findings[1]!.detail, /not judged/);
});

test('the context window: LLM_CONTEXT_CHARS against what the server runs with; a trained size only informs', () => {
  assert.equal(tokensForDraft(8_000), 4_000);
  assert.equal(contextCharsFor(4_000), 8_000);
  assert.equal(contextCharsFor(1_000), 0);
  const small = contextFinding(8_000, { tokens: 2048, source: 'llama.cpp /props n_ctx', kind: 'runtime' });
  assert.equal(small.verdict, 'warn');
  assert.match(small.fix ?? '', /^start the server with a larger context .*: a typical mail alone leaves no room/);
  assert.match(contextFinding(20_000, { tokens: 4096, source: 'x', kind: 'runtime' }).fix ?? '', /^set LLM_CONTEXT_CHARS=8000, or start/);
  assert.match(contextFinding(8_000, { tokens: 32_768, source: 'x', kind: 'runtime' }).detail, /up to LLM_CONTEXT_CHARS=\d+ would fit/);
  const trained = contextFinding(8_000, { tokens: 131_072, source: 'Ollama /api/show llama.context_length', kind: 'trained' });
  assert.equal(trained.verdict, 'ok');
  assert.match(trained.detail, /OLLAMA_CONTEXT_LENGTH/);
});

test('approved replies as examples come on top of the context: the check counts them and the fix leaves them room', () => {
  assert.equal(tokensForDraft(8_000, 2_400), 4_600);
  const withExamples = contextFinding(8_000, { tokens: 4096, source: 'x', kind: 'runtime' }, 2_400);
  assert.equal(withExamples.verdict, 'warn');
  assert.match(withExamples.detail, /and 2400 characters of examples/);
  assert.match(withExamples.fix ?? '', /^set LLM_CONTEXT_CHARS=5000 \(or fewer DRAFT_EXAMPLES\), or start/);
  assert.equal(contextFinding(8_000, { tokens: 4096, source: 'x', kind: 'runtime' }).verdict, 'ok', 'without examples 8,000 fits 4k');
});

test('LLM_CONTEXT_CHARS cuts the retrieved context; LLM_SUMMARY_TIMEOUT_MS defaults to LLM_TIMEOUT_MS', () => {
  const env = { IMAP_USER: 'u@example.test', IMAP_PASSWORD: 'x', LLM_BASE_URL: 'http://127.0.0.1:1/v1' };
  const defaults = loadConfig(env).llm;
  assert.deepEqual([defaults.contextChars, defaults.summaryTimeoutMs], [8_000, 60_000]);
  const set = loadConfig({ ...env, LLM_CONTEXT_CHARS: '2000', LLM_TIMEOUT_MS: '300000' }).llm;
  assert.deepEqual([set.contextChars, set.summaryTimeoutMs], [2_000, 300_000]);
  assert.equal(loadConfig({ ...env, LLM_SUMMARY_TIMEOUT_MS: '45000' }).llm.summaryTimeoutMs, 45_000);
  assert.throws(() => loadConfig({ ...env, LLM_CONTEXT_CHARS: 'lots' }), /LLM_CONTEXT_CHARS/);

  const items = [1, 2, 3].map((i) => ({ sourceId: `s${i}`, kind: 'knowledge' as const, text: 'x'.repeat(1_000) }));
  assert.equal(withinBudget(items, 2_000).length, 2);
  assert.equal(withinBudget(items).length, 3);
});

test('a summary’s model time: the setting, but inside the activity’s own timeout (runs whose turn names no summary time)', () => {
  assert.equal(summaryModelMs(300_000, undefined), 300_000);
  assert.equal(summaryModelMs(300_000, 30_000), 30_000 - SUMMARY_STEP_MARGIN_MS);
  assert.equal(summaryModelMs(300_000, 300_000 + SUMMARY_STEP_MARGIN_MS), 300_000);
  assert.equal(summaryModelMs(20_000, 30_000), 20_000);
});

test('a case turn with a summary due names the summary step’s time: the model’s and a margin', async () => {
  const parts = {
    routeCase: async () => ({}) as never,
    autonomyVerdict: async () => null as never,
    caseState: async () => ({ status: 'open' }) as never,
    planCaseDeadline: async () => null as never,
    summaryDue: async () => true,
  };
  const ready = [{ emailId: 'e1', draftId: null }];
  const turn = await createCaseTurnActivities({ ...parts, summaryTimeoutMs: 300_000 }).caseTurn({ caseId: 'c1', ready });
  assert.deepEqual([turn.summaryDue, turn.summaryStepMs], [true, 300_000 + SUMMARY_STEP_MARGIN_MS]);
  // Without the setting (a worker of 1.3's wiring), the turn names none: the bookkeeping profile's 30 seconds.
  assert.equal((await createCaseTurnActivities(parts).caseTurn({ caseId: 'c1', ready })).summaryStepMs, undefined);
});
