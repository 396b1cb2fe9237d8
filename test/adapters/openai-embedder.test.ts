import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createOpenAiEmbedder } from '../../src/retrieval/embedder.openai';
import { PermanentError, TransientError } from '../../src/platform/errors';
import { bagOfWordsVector, startEmbeddingsDouble, type EmbeddingsDouble } from '../doubles/embeddings-double';
import { startOpenAiDouble } from '../doubles/openai-double';

let double: EmbeddingsDouble;
before(async () => {
  double = await startEmbeddingsDouble({ dims: 64 });
});
after(() => double.stop());

const embedder = (timeoutMs = 5_000, baseUrl = double.baseUrl) =>
  createOpenAiEmbedder({ baseUrl, apiKey: 'test-key', model: 'text-embedding-test', timeoutMs });

function cosine(a: number[], b: number[]): number {
  const dot = a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);
  const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return dot / (norm(a) * norm(b));
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  assert.fail('expected a rejection');
}

test('embeds through the official client: one vector per text, in order, floats requested', async () => {
  const texts = ['Die Rechnung wurde doppelt abgebucht', 'My parcel is delayed', 'Rechnung doppelt bezahlt, bitte erstatten'];
  const from = double.requests.length;
  const vectors = await embedder().embed(texts, 'passage');
  assert.equal(vectors.length, 3);
  assert.deepEqual(
    vectors,
    texts.map((t) => bagOfWordsVector(t, 64)),
  );
  const sent = double.requests.slice(from);
  assert.equal(sent.length, 1);
  assert.equal(sent[0]?.path, '/v1/embeddings');
  assert.equal(sent[0]?.body.model, 'text-embedding-test');
  assert.equal(sent[0]?.body.encoding_format, 'float');
  assert.deepEqual(sent[0]?.body.input, texts);
  const [de1 = [], en = [], de2 = []] = vectors;
  assert.ok(cosine(de1, de2) > cosine(de1, en), 'the two German invoice texts are nearer to each other');
  assert.equal(embedder().model, 'text-embedding-test');
});

test('at most 64 texts per request; order survives batching; nothing is sent for no texts', async () => {
  const texts = Array.from({ length: 150 }, (_, i) => `Nachricht Nummer ${i} about topic${i % 7}`);
  const from = double.requests.length;
  const vectors = await embedder().embed(texts, 'passage');
  const sizes = double.requests.slice(from).map((r) => (r.body.input as string[]).length);
  assert.deepEqual(sizes, [64, 64, 22]);
  assert.deepEqual(vectors[149], bagOfWordsVector(texts[149] ?? '', 64));
  assert.deepEqual(vectors[64], bagOfWordsVector(texts[64] ?? '', 64));

  const before = double.requests.length;
  assert.deepEqual(await embedder().embed([], 'passage'), []);
  assert.equal(double.requests.length, before);
});

test('HTTP 429 and 5xx are transient (with Retry-After), 400/401/404 permanent', async () => {
  double.script({ kind: 'status', status: 429, retryAfter: '2' });
  const limited = await rejection(embedder().embed(['x y z'], 'passage'));
  assert.ok(limited instanceof TransientError);
  assert.equal(limited.code, 'EMBEDDING_HTTP_429');
  assert.equal(limited.retryAfterMs, 2000);

  double.script({ kind: 'status', status: 503 });
  const unavailable = await rejection(embedder().embed(['x y z'], 'passage'));
  assert.ok(unavailable instanceof TransientError);
  assert.equal(unavailable.code, 'EMBEDDING_HTTP_503');

  for (const status of [400, 401]) {
    double.script({ kind: 'status', status });
    const err = await rejection(embedder().embed(['x y z'], 'passage'));
    assert.ok(err instanceof PermanentError, `${status} is permanent`);
    assert.equal(err.code, `EMBEDDING_HTTP_${status}`);
  }

  // A chat-only endpoint (the LLM double has no /embeddings) is a configuration error, not a hiccup.
  const chatOnly = await startOpenAiDouble();
  try {
    const err = await rejection(embedder(5_000, chatOnly.baseUrl).embed(['x y z'], 'passage'));
    assert.ok(err instanceof PermanentError);
    assert.equal(err.code, 'EMBEDDING_HTTP_404');
  } finally {
    await chatOnly.stop();
  }
});

test('a slow service times out as EMBEDDING_TIMEOUT; an unreachable one is EMBEDDING_UNAVAILABLE', async () => {
  double.script({ kind: 'delay', ms: 1_000 });
  const slow = await rejection(embedder(200).embed(['langsam'], 'passage'));
  assert.ok(slow instanceof TransientError);
  assert.equal(slow.code, 'EMBEDDING_TIMEOUT');

  const gone = await startEmbeddingsDouble();
  await gone.stop();
  const down = await rejection(embedder(2_000, gone.baseUrl).embed(['niemand da'], 'passage'));
  assert.ok(down instanceof TransientError);
  assert.equal(down.code, 'EMBEDDING_UNAVAILABLE');
});

test('an answer with the wrong number of vectors is rejected, not silently misaligned', async () => {
  double.script({ kind: 'raw', body: { object: 'list', model: 'm', data: [{ object: 'embedding', index: 0, embedding: [1, 0] }] } });
  const err = await rejection(embedder().embed(['eins', 'zwei'], 'passage'));
  assert.ok(err instanceof TransientError);
  assert.equal(err.code, 'EMBEDDING_INVALID_RESPONSE');
});
