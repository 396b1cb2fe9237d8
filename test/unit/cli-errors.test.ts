import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function cli(args: string[], env: Record<string, string> = {}) {
  try {
    const r = await run(process.execPath, ['bin/email-rag.js', ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test('bad arguments: one clear line and exit 2, never a stack trace', async () => {
  for (const args of [
    ['frobnicate'],
    ['approve'],
    ['reject', 'x'],
    ['status', '--colour'],
    ['ingest', '/no/such/file.eml'],
    ['answer'],
    ['answer', 'email-x'],
  ]) {
    const r = await cli(args, { TEMPORAL_ADDRESS: '127.0.0.1:1', DATABASE_URL: 'mariadb://root@127.0.0.1:1/x' });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^email-rag: /);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
});

test('unreachable services: exit 3 with what to do', async () => {
  const temporal = await cli(['approve', 'email-x'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
  assert.equal(temporal.code, 3);
  assert.match(temporal.stderr, /cannot reach Temporal at 127\.0\.0\.1:1.*TEMPORAL_ADDRESS/);
  const db = await cli(['status'], { DATABASE_URL: 'mariadb://root@127.0.0.1:1/x' });
  assert.equal(db.code, 3);
  assert.match(db.stderr, /cannot reach MariaDB .*DATABASE_URL/);
  assert.doesNotMatch(db.stderr + temporal.stderr, /\n\s+at /);
});

test('bad configuration is reported before anything runs', async () => {
  const r = await cli(['worker'], { IMAP_USER: '', IMAP_PASSWORD: '', IMAP_PORT: 'abc' });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^email-rag: invalid configuration: /);
  assert.match(r.stderr, /IMAP_USER is required/);
  assert.match(r.stderr, /IMAP_PORT must be a whole number/);
});
