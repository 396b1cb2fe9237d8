/**
 * A production install as an operator makes it: `npm run build` in the checkout, then only what
 * a deployment ships (package.json, package-lock.json, bin/, dist/) copied elsewhere and
 * `npm ci --omit=dev` there. The CLI, `email-rag migrate`, `email-rag worker` (against a real
 * Temporal dev server and MariaDB) and `email-rag inbox` must run from it: nothing of test/ or
 * scripts/, no devDependency and no TypeScript source is there to fall back on.
 *
 * npm takes its packages from the local cache when it has them (`--prefer-offline`): after the
 * checkout's own `npm ci` the install needs no download.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { Connection } from '@temporalio/client';
import { dropDatabase } from '../../src/platform/migrate.mariadb';
import { spawnManaged } from '../support/services/child-process';
import { freePort } from '../support/services/ports';
import { startWorkerProcess } from '../support/services/worker-process';
import { startStack, type TestStack } from '../support/stack';
import { waitFor } from '../support/wait';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');
/** What a deployment ships: the build output and what installs and starts it. */
const SHIPPED = ['package.json', 'package-lock.json', 'bin', 'dist'];

let dir: string;
let install: string;
let stack: TestStack;
let databaseUrl: string;
let env: Record<string, string>;

/** `email-rag …` from the production install, with the stack's configuration. */
const cli = (args: string[], timeout = 60_000) =>
  run(process.execPath, [path.join(install, 'bin/email-rag.js'), ...args], { cwd: install, env: { ...process.env, ...env }, timeout });

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-production-'));
  install = path.join(dir, 'app');
  const t0 = Date.now();
  // Skips the work when dist/ is fresh.
  await run(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: root, timeout: 600_000 });
  const t1 = Date.now();
  // A plain copy: new modification times, as many deployment tools give them.
  for (const entry of SHIPPED) cpSync(path.join(root, entry), path.join(install, entry), { recursive: true });
  await run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: install,
    timeout: 600_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  console.log(`production install: build ${((t1 - t0) / 1000).toFixed(1)} s, npm ci --omit=dev ${((Date.now() - t1) / 1000).toFixed(1)} s`);

  stack = await startStack();
  // A database the production install's own `migrate` creates, from the migrations in dist/.
  const url = new URL(stack.env.DATABASE_URL!);
  url.pathname = `/email_rag_production_${randomBytes(4).toString('hex')}`;
  databaseUrl = url.toString();
  env = {
    ...stack.env,
    DATABASE_URL: databaseUrl,
    // The test runner's loader hooks (tsx) must not reach the installed processes.
    NODE_OPTIONS: '',
    EMAIL_RAG_FROM_SOURCE: '',
  };
});

after(async () => {
  if (databaseUrl) await dropDatabase(databaseUrl).catch(() => undefined);
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the install holds the dependencies and no devDependency', () => {
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  for (const name of Object.keys(pkg.dependencies)) {
    assert.ok(existsSync(path.join(install, 'node_modules', name, 'package.json')), `${name} installed`);
  }
  const devOnly = Object.entries(lock.packages)
    .filter(([where, entry]) => where.startsWith('node_modules/') && entry.dev === true)
    .map(([where]) => where);
  assert.ok(devOnly.length > 50, `the lockfile marks ${devOnly.length} packages dev-only`);
  const present = devOnly.filter((where) => existsSync(path.join(install, where)));
  assert.deepEqual(present, []);
  // The packages only tests and scripts load, by name.
  for (const name of ['@temporalio/testing', 'playwright-core', 'smtp-server', 'tsx', 'eslint', 'prettier', 'js-yaml']) {
    assert.equal(existsSync(path.join(install, 'node_modules', name)), false, `${name} is not installed`);
  }
  // Neither sources nor tests came along: only the build output can run.
  for (const folder of ['test', 'scripts', 'workflows', 'src']) assert.equal(existsSync(path.join(install, folder)), false, folder);
});

test('the CLI runs from dist/: help, migrate, status', async () => {
  const help = await cli(['--help']);
  assert.match(help.stdout, /^usage: email-rag <command>/);
  const migrated = await cli(['migrate']);
  assert.match(migrated.stdout, /^database email_rag_production_\w+: applied \d{3}/);
  const again = await cli(['migrate']);
  assert.match(again.stdout, /: up to date/);
  const status = await cli(['status', '--json']);
  assert.doesNotThrow(() => JSON.parse(status.stdout), status.stdout);
});

test('email-rag worker starts compiled, polls Temporal and stops on SIGTERM with exit 0', async () => {
  const logFile = path.join(dir, 'worker.log');
  const worker = await startWorkerProcess(env, logFile, 180_000, [], install);
  try {
    const log = readFileSync(logFile, 'utf8');
    assert.match(log, /worker runs compiled JavaScript \(dist\/\) with the prebuilt workflow bundle workflow-bundle\.js/);
    // It polls its task queues: the server lists it as a poller.
    const connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS! });
    try {
      await waitFor(
        'the worker polling its workflow task queue',
        async () => {
          const queue = await connection.workflowService.describeTaskQueue({
            namespace: env.TEMPORAL_NAMESPACE!,
            taskQueue: { name: env.TEMPORAL_TASK_QUEUE! },
          });
          return queue.pollers.length > 0;
        },
        60_000,
        500,
      );
    } finally {
      await connection.close();
    }
  } finally {
    await worker.stop();
  }
  assert.equal(await worker.managed.exited, 0, worker.managed.logTail(20));
  assert.match(readFileSync(logFile, 'utf8'), /"message":"worker stopped"/);
});

test('email-rag inbox answers HTTP on INBOX_PORT and stops on SIGTERM', async () => {
  const port = await freePort();
  const logFile = path.join(dir, 'inbox.log');
  const inbox = spawnManaged(process.execPath, [path.join(install, 'bin/email-rag.js'), 'inbox'], {
    logFile,
    cwd: install,
    env: { ...process.env, ...env, INBOX_PORT: String(port), INBOX_HOST: '127.0.0.1' },
  });
  try {
    await waitFor(
      'the review inbox answering',
      async () => {
        if (inbox.hasExited()) throw new Error(`the inbox exited:\n${inbox.logTail(20)}`);
        const res = await fetch(`http://127.0.0.1:${port}/healthz`);
        return res.status === 200;
      },
      60_000,
      250,
    );
    // The page is rendered from the views the build copied into dist/.
    const login = await fetch(`http://127.0.0.1:${port}/login`);
    assert.equal(login.status, 200);
    assert.match(await login.text(), /<form method="post" action="\/login"/);
    assert.match(readFileSync(logFile, 'utf8'), new RegExp(`review inbox on http://127\\.0\\.0\\.1:${port}`));
  } finally {
    await inbox.terminate('SIGTERM', 20_000);
  }
  assert.equal(await inbox.exited, 0, inbox.logTail(20));
});
