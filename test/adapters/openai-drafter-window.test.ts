/**
 * The drafter and a prompt over the model's window, through the official `openai` client against
 * the OpenAI TEST DOUBLE (test/doubles/openai-double.ts) answering as OpenAI does: HTTP 400 with
 * `context_length_exceeded` and the sizes. The real llama.cpp server's wording is tested in
 * test/adapters/llm-real-server.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createOpenAiDrafter } from '../../src/drafting/drafter.openai';
import type { DraftRequest } from '../../src/drafting/drafter.port';
import { DRAFT_FLAGS } from '../../src/drafting/drafting.contract';
import { PermanentError } from '../../src/platform/errors';
import { startOpenAiDouble, type OpenAiDouble } from '../doubles/openai-double';

let double: OpenAiDouble;
before(async () => {
  double = await startOpenAiDouble();
});
after(async () => {
  await double?.stop();
});

const overflow = (asked: number) => ({
  kind: 'status' as const,
  status: 400,
  code: 'context_length_exceeded',
  message: `This model's maximum context length is 8192 tokens. However, your messages resulted in ${asked} tokens. Please reduce the length of the messages.`,
});

const request: DraftRequest = {
  emailId: 'e-window',
  from: { name: 'Erika Muster', address: 'erika@example.test' },
  subject: 'Export failed',
  text: `The export failed, the log is below.\n${'2026-11-30 10:00:00 ERROR export chunk 4711 failed: timeout\n'.repeat(400)}`,
  context: [{ sourceId: 'knowledge:export.md#0', kind: 'knowledge', text: 'Exports over 1 GB run at night.' }],
  examples: [{ text: 'Hello [name], thank you for the log. Best regards' }],
  language: 'en',
};
const drafter = () => createOpenAiDrafter({ baseUrl: double.baseUrl, apiKey: 'not-needed', model: 'double-model', timeoutMs: 10_000 });
const userPrompt = (i: number) => double.requests[i]?.body.messages?.find((m) => m.role === 'user')?.content ?? '';

test('over the window: asked again without examples and with the mail cut to fit; the draft says so', async () => {
  double.requests.length = 0;
  double.script(overflow(16_384));
  const draft = await drafter().draft(request);
  assert.deepEqual(draft.flags, [DRAFT_FLAGS.promptShortened]);
  assert.ok(draft.body.length > 0);
  assert.equal(double.requests.length, 2);
  assert.match(userPrompt(0), /<examples>/);
  assert.doesNotMatch(userPrompt(1), /<examples>/);
  // 8,192 of 16,384 tokens fit: the mail goes in at 40 % of its length (half, less a margin).
  assert.ok(userPrompt(1).length < userPrompt(0).length * 0.5, `${userPrompt(1).length} of ${userPrompt(0).length}`);
  assert.match(userPrompt(1), /The export failed, the log is below\./);
});

test('still over the window after two shorter tries: the permanent LLM failure of any refused request, as before', async () => {
  double.requests.length = 0;
  double.script(overflow(16_384), overflow(12_000), overflow(9_000));
  await assert.rejects(drafter().draft(request), (err) => {
    assert.ok(err instanceof PermanentError, String(err));
    assert.equal(err.code, 'LLM_HTTP_400');
    assert.match(err.message, /maximum context length is 8192 tokens/);
    return true;
  });
  assert.equal(double.requests.length, 3);
});

test('any other 400 is not asked again: a refused schema stays the permanent failure it was', async () => {
  double.requests.length = 0;
  double.script({
    kind: 'status',
    status: 400,
    message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
  });
  await assert.rejects(drafter().draft(request), PermanentError);
  assert.equal(double.requests.length, 1);
});
