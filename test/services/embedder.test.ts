/**
 * The embedder launcher the stack, the tests and the eval use (test/support/services/embedder.ts),
 * and the product's default embedder server behind it (embedder/usem3-serve.py): its answers to
 * hostile requests are a clear 4xx and leave it serving.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startEmbedderServer, type EmbedderServer } from '../support/services/embedder';

let dir: string;
let server: EmbedderServer;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'embedder-launcher-'));
  server = await startEmbedderServer({ dir });
});

after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function post(
  body: unknown,
): Promise<{ status: number; json: { error?: { message: string }; data?: Array<{ embedding: number[] }> } }> {
  const res = await fetch(`${server.baseUrl}/embeddings`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { error?: { message: string } } };
}

test('usem3-serve on a free loopback port: healthy, names its model, the env points the product at it', async () => {
  assert.equal(server.baseUrl, `http://127.0.0.1:${server.port}/v1`);
  assert.equal((await fetch(`http://127.0.0.1:${server.port}/health`)).status, 200);
  const models = (await (await fetch(`${server.baseUrl}/models`)).json()) as { data: Array<{ id: string }> };
  assert.deepEqual(
    models.data.map((m) => m.id),
    [server.model],
  );
  assert.deepEqual(server.env, {
    EMBEDDER: 'remote',
    EMBEDDING_BASE_URL: server.baseUrl,
    EMBEDDING_INPUT_TYPE: 'none',
    EMBEDDING_MODEL: 'universal-sentence-encoder-multilingual-3',
  });
  const ok = await post({ input: ['Wo bleibt meine Bestellung?', ''], model: server.model });
  assert.equal(ok.status, 200);
  assert.deepEqual(
    ok.json.data?.map((d) => d.embedding.length),
    [512, 512],
    'an empty string is a text like any other',
  );
});

test('hostile requests get a 400 or 413 naming the rule, and the server keeps serving', async () => {
  const cases: Array<[unknown, number, RegExp]> = [
    ['{not json', 400, /invalid JSON/],
    [[1, 2], 400, /JSON object/],
    [{ input: [] }, 400, /non-empty/],
    [{ input: 42 }, 400, /non-empty string or array/],
    [{ input: ['ok', 7] }, 400, /'input'\[1\] is int, not a string/],
    [{ input: [[101, 102]] }, 400, /'input'\[0\] is list/],
    [{ input: new Array<string>(2049).fill('x') }, 400, /2049 texts; at most 2048/],
    [{ input: ['x'.repeat(100_001)] }, 400, /100001 characters; at most 100000/],
  ];
  for (const [body, status, message] of cases) {
    const r = await post(body);
    assert.equal(r.status, status, JSON.stringify(body).slice(0, 60));
    assert.match(r.json.error?.message ?? '', message);
  }
  const huge = await fetch(`${server.baseUrl}/embeddings`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ input: 'x'.repeat(17 * 1024 * 1024) }),
  }).then(
    (res) => res.status,
    () => 'closed',
  );
  assert.ok(huge === 413 || huge === 'closed', `a 17 MB body: ${huge}`);
  assert.equal((await fetch(`http://127.0.0.1:${server.port}/health`)).status, 200);
  assert.equal((await post({ input: 'still here' })).status, 200);
});

test('concurrent requests are answered one inference at a time, each with its own vectors', async () => {
  const texts = ['Rechnung', 'invoice', 'Lieferung', 'delivery'];
  const answers = await Promise.all(texts.map((t) => post({ input: [t] })));
  const alone = await post({ input: texts });
  assert.deepEqual(
    answers.map((a) => a.json.data?.[0]?.embedding.slice(0, 4).map((x) => x.toFixed(5))),
    alone.json.data?.map((d) => d.embedding.slice(0, 4).map((x) => x.toFixed(5))),
  );
});

test('stop ends the server and frees the port', async () => {
  const dir2 = mkdtempSync(path.join(tmpdir(), 'embedder-launcher-'));
  const other = await startEmbedderServer({ dir: dir2 });
  await other.stop();
  rmSync(dir2, { recursive: true, force: true });
  assert.equal(other.managed.hasExited(), true);
  await assert.rejects(fetch(`http://127.0.0.1:${other.port}/health`));
});
