/** `email-rag inbox users add|disable` against a real MariaDB, as an operator runs it. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import bcrypt from 'bcryptjs';
import { createTestDatabase } from '../support/database';

let db: Awaited<ReturnType<typeof createTestDatabase>>;

before(async () => {
  db = await createTestDatabase('inboxusers');
});
after(async () => {
  await db?.drop();
});

function cli(args: string[], stdin: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['bin/email-rag.js', ...args],
      { env: { ...process.env, DATABASE_URL: db.url } },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin);
  });
}

async function user(name: string): Promise<{ password_hash: string; role: string; disabled_at: Date | null } | undefined> {
  const rows = (await db.pool.query('SELECT password_hash, role, disabled_at FROM inbox_users WHERE name = ?', [name])) as Array<{
    password_hash: string;
    role: string;
    disabled_at: Date | null;
  }>;
  return rows[0];
}

test('a user is added with a bcrypt hash of the password read from stdin, and can be disabled', async () => {
  const r = await cli(['inbox', 'users', 'add', 'anna', '--role', 'operator'], 'correct horse battery\n');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /inbox user anna \(operator\) added/);
  const row = await user('anna');
  assert.equal(row?.role, 'operator');
  assert.match(row!.password_hash, /^\$2[aby]\$12\$/);
  assert.ok(await bcrypt.compare('correct horse battery', row!.password_hash));
  assert.ok(!(await bcrypt.compare('correct horse batter', row!.password_hash)));
  const again = await cli(['inbox', 'users', 'add', 'anna', '--role', 'reviewer'], 'another long password\n');
  assert.match(again.stdout, /updated/);
  assert.equal((await user('anna'))?.role, 'reviewer');
  const off = await cli(['inbox', 'users', 'disable', 'anna'], '');
  assert.equal(off.code, 0, off.stderr);
  assert.ok((await user('anna'))?.disabled_at);
});

test('a wrong role, a short password or an odd name is refused with exit 2 and nothing stored', async () => {
  for (const [args, stdin] of [
    [['inbox', 'users', 'add', 'bob', '--role', 'admin'], 'long enough password\n'],
    [['inbox', 'users', 'add', 'bob', '--role', 'reviewer'], 'short\n'],
    [['inbox', 'users', 'add', 'bob smith', '--role', 'reviewer'], 'long enough password\n'],
  ] as const) {
    const r = await cli([...args], stdin);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
  }
  assert.equal(await user('bob'), undefined);
  assert.equal(await user('bob smith'), undefined);
});
