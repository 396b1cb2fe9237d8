/**
 * `email-rag llm check` as an operator runs it: against the LLM double (structured output, a server
 * that refuses json_schema, none at all) and against a real model server (llama.cpp's llama-server
 * with SmolLM2, when `npm run setup:llm` has put it here).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startOpenAiDouble, type OpenAiDouble } from '../doubles/openai-double';
import { startLlamaServer, type LlamaServer } from '../support/services/llama-server';
import { REAL_MODEL_MISSING, realModelServer } from '../support/services/tool-paths';
import type { LlmCheck } from '../../src/drafting/llm-check';

let double: OpenAiDouble;
let dir: string;
before(async () => {
  double = await startOpenAiDouble();
  dir = mkdtempSync(path.join(tmpdir(), 'llm-check-'));
});
after(async () => {
  await double?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The CLI with only the LLM settings given here (none of the caller's LLM_* variables). */
function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('LLM_')));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/email-rag.js', ...args],
      { env: { ...base, IMAP_USER: 'support@example.test', IMAP_PASSWORD: 'secret', ...env }, timeout: 300_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test('structured output works: one line per question, exit 0; --json has the same verdicts', async () => {
  const env = { LLM_BASE_URL: double.baseUrl, LLM_MODEL: 'gpt-4o-mini' };
  const r = await cli(['llm', 'check'], env);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^llm: gpt-4o-mini at http:\/\/127\.0\.0\.1:\d+\/v1 \(LLM_TIMEOUT_MS 60000\)$/m);
  assert.match(r.stdout, /^json_schema {2}ok {4}gpt-4o-mini at .*: structured output \(json_schema\) ok, answered in \d+ ms$/m);
  assert.match(r.stdout, /^json_object {2}ok {4}JSON mode \(json_object\) ok/m);
  // The double reports no window: said, and what the setting needs.
  assert.match(
    r.stdout,
    /^context {6}ok {4}not reported by the server \(\/props: HTTP 404; \/v1\/models: HTTP 404; \/api\/show: HTTP 404\); LLM_CONTEXT_CHARS 8000/m,
  );
  const formats = double.requests.filter((q) => q.path.endsWith('/chat/completions')).map((q) => q.body.response_format?.type);
  assert.deepEqual(formats, ['json_schema', 'json_object']);

  const json = await cli(['llm', 'check', '--json'], { ...env, LLM_CONTEXT_CHARS: '2000' });
  assert.equal(json.code, 0, json.stderr);
  const c = JSON.parse(json.stdout) as LlmCheck;
  assert.deepEqual([c.ok, c.servedModel, c.contextChars, c.jsonSchema.outcome], [true, 'gpt-4o-mini', 2000, 'structured']);
});

test('a server that refuses json_schema: exit 1, the fix, and JSON mode as the hint', async () => {
  double.refuseJsonSchema(true);
  try {
    const r = await cli(['llm', 'check'], { LLM_BASE_URL: double.baseUrl });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^json_schema {2}fail {2}.*refuses response_format json_schema \(HTTP 400: Invalid parameter/m);
    assert.match(r.stdout, /fix: use a server and model with structured outputs/);
    assert.match(r.stdout, /^json_object {2}warn {2}JSON mode \(json_object\) ok, .*but not json_schema/m);
    assert.match(r.stdout, /drafts cannot use this endpoint: exit 1$/m);
  } finally {
    double.refuseJsonSchema(false);
  }
});

test('no server, no LLM_BASE_URL, a wrong word', async () => {
  const down = await cli(['llm', 'check', '--json'], { LLM_BASE_URL: 'http://127.0.0.1:1/v1', LLM_TIMEOUT_MS: '2000' });
  assert.equal(down.code, 1);
  const c = JSON.parse(down.stdout) as LlmCheck;
  assert.equal(c.jsonSchema.outcome, 'unreachable');
  assert.match(c.findings[0]!.fix ?? '', /start the LLM server, or correct LLM_BASE_URL/);

  const offline = await cli(['llm', 'check'], {});
  assert.equal(offline.code, 2);
  assert.match(offline.stderr, /LLM_BASE_URL is not set: drafts come from the offline drafter/);

  const wrong = await cli(['llm', 'probe'], { LLM_BASE_URL: double.baseUrl });
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /unknown subcommand: llm probe/);
});

test(
  'a real model server (llama.cpp, SmolLM2): structured output, its model name and its context window',
  { skip: realModelServer() ? false : REAL_MODEL_MISSING },
  async () => {
    let server: LlamaServer | undefined;
    try {
      server = await startLlamaServer({ dir, contextTokens: 4096 });
      const env = { ...server.env, LLM_TIMEOUT_MS: '120000' };
      const r = await cli(['llm', 'check'], env);
      // What an operator sees, in the test's output.
      console.log(r.stdout);
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}\n${server.managed.logTail(20)}`);
      assert.match(r.stdout, /^json_schema {2}ok {4}smollm2-135m-instruct at .*: structured output \(json_schema\) ok/m);
      assert.match(r.stdout, /^json_object {2}ok /m);
      // The defaults carry two approved replies as examples beside 8,000 characters of context: more
      // than a 4,096-token window takes, said with the setting that fits; a warning does not fail the check.
      assert.match(
        r.stdout,
        /^context {6}warn {2}4096 tokens \(llama\.cpp \/props n_ctx\): LLM_CONTEXT_CHARS 8000 and 2400 characters of examples/m,
      );
      assert.match(r.stdout, /fix: set LLM_CONTEXT_CHARS=5000 \(or fewer DRAFT_EXAMPLES\)/);

      // Without examples the default context fits the window.
      const bare = { ...env, DRAFT_EXAMPLES: '0' };
      const fits = await cli(['llm', 'check'], bare);
      assert.equal(fits.code, 0, fits.stderr);
      assert.match(
        fits.stdout,
        /^context {6}ok {4}4096 tokens \(llama\.cpp \/props n_ctx\); LLM_CONTEXT_CHARS 8000 needs about 4000 tokens/m,
      );

      // More context than the window takes: said, with the setting that fits.
      const tight = await cli(['llm', 'check', '--json'], { ...bare, LLM_CONTEXT_CHARS: '20000' });
      const c = JSON.parse(tight.stdout) as LlmCheck;
      assert.equal(tight.code, 0, tight.stderr);
      assert.deepEqual(c.context, { tokens: 4096, source: 'llama.cpp /props n_ctx', kind: 'runtime' });
      const context = c.findings.find((f) => f.part === 'context');
      assert.equal(context?.verdict, 'warn');
      assert.match(context?.fix ?? '', /^set LLM_CONTEXT_CHARS=8000, or start the server with a larger context/);
    } finally {
      await server?.stop();
    }
  },
);
