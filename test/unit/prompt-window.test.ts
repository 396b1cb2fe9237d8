/**
 * A prompt over the model's window: how each server says so, and the shorter request the drafter
 * asks with then (src/drafting/prompt-window.ts). The wordings are the servers' own: llama.cpp's
 * from its server here, OpenAI's and vLLM's as their APIs answer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EMAIL_TEXT_CHARS, shortenedRequest, windowOverflow } from '../../src/drafting/prompt-window';
import type { DraftRequest } from '../../src/drafting/drafter.port';

test('the servers say the prompt is too long, most with the sizes: the share that fits', () => {
  const llama = windowOverflow(400, '400 request (18420 tokens) exceeds the available context size (8192 tokens), try increasing it');
  assert.ok(llama !== null && Math.abs(llama - 8192 / 18420) < 1e-9);
  const openai = windowOverflow(
    400,
    "400 This model's maximum context length is 128000 tokens. However, your messages resulted in 160000 tokens. Please reduce the length of the messages.",
    'context_length_exceeded',
  );
  assert.equal(openai, 0.8);
  const vllm = windowOverflow(
    400,
    "This model's maximum context length is 4096 tokens. However, you requested 8192 tokens (7168 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.",
  );
  assert.equal(vllm, 0.5);
  // Said, but without the sizes: half.
  assert.equal(windowOverflow(400, 'prompt too long', 'context_length_exceeded'), 0.5);
  assert.equal(windowOverflow(400, 'the input exceeds the context window of this model'), 0.5);
});

test('any other error is not an overflow: a refused schema, a server error, a key', () => {
  assert.equal(windowOverflow(400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."), null);
  assert.equal(windowOverflow(500, '500 request (9000 tokens) exceeds the available context size (8192 tokens)'), null);
  assert.equal(windowOverflow(401, 'Incorrect API key provided'), null);
  assert.equal(windowOverflow(undefined, 'Connection error.'), null);
});

test('the shorter request: no examples, the mail and the context cut to the share, the lowest-ranked context first', () => {
  const req: DraftRequest = {
    emailId: 'e-1',
    from: { name: 'Erika', address: 'erika@example.test' },
    subject: 'Logs',
    text: 'x'.repeat(30_000),
    context: [
      { sourceId: 'knowledge:a.md#0', kind: 'knowledge', text: 'a'.repeat(1_000) },
      { sourceId: 'knowledge:b.md#0', kind: 'knowledge', text: 'b'.repeat(1_000) },
      { sourceId: 'knowledge:c.md#0', kind: 'knowledge', text: 'c'.repeat(1_000) },
    ],
    examples: [{ text: 'An earlier reply.' }],
    language: 'en',
  };
  const short = shortenedRequest(req, 0.5);
  // Half, less a margin for what does not shrink (instructions, schema, the answer): 40 %.
  assert.equal(short.text.length, EMAIL_TEXT_CHARS * 0.4);
  assert.deepEqual(
    short.context.map((c) => [c.sourceId, c.text.length]),
    [
      ['knowledge:a.md#0', 1_000],
      ['knowledge:b.md#0', 200],
    ],
  );
  assert.equal(short.examples, undefined);
  assert.equal(short.emailId, 'e-1');
  assert.equal(short.subject, 'Logs');
  // The original is left as it was.
  assert.equal(req.text.length, 30_000);
  assert.equal(req.examples?.length, 1);
});
