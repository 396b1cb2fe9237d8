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

test("--if-new adds a new user and leaves an existing one as it is (a deployment's init names its first operator on every start)", async () => {
  const first = await cli(['inbox', 'users', 'add', 'ines', '--role', 'operator', '--if-new'], 'first long passphrase\n');
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /inbox user ines \(operator\) added/);
  const hash = (await user('ines'))!.password_hash;
  const again = await cli(['inbox', 'users', 'add', 'ines', '--role', 'reviewer', '--if-new'], 'another long passphrase\n');
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /exists: left as it is/);
  const row = await user('ines');
  assert.equal(row?.role, 'operator');
  assert.equal(row?.password_hash, hash);
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

test('password rules: too short, a common password, one containing the name or an easy pattern is refused with the reason', async () => {
  for (const [password, reason] of [
    ['short pass', /at least 12 characters/],
    ['Password1234', /list of common passwords/],
    ['qwertyuiop12', /list of common passwords/],
    ['xx-Carla-2024-yy', /may not contain the user name/],
    ['aaaaaaaaaaaaaaa', /too easy to guess/],
    ['iloveyou1234', /too easy to guess/],
    ['ü'.repeat(40), /at most 72 bytes/],
  ] as const) {
    const r = await cli(['inbox', 'users', 'add', 'carla', '--role', 'reviewer'], `${password}\n`);
    assert.equal(r.code, 2, `${password}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, reason, password);
    assert.doesNotMatch(r.stderr + r.stdout, new RegExp(password), 'the password is not echoed');
  }
  assert.equal(await user('carla'), undefined);
});

test('reset-password: a new hash under the same rules, the open sessions ended and a sign-in lock lifted', async () => {
  assert.equal((await cli(['inbox', 'users', 'add', 'dieter', '--role', 'operator'], 'granite owl listens\n')).code, 0);
  const before = (await user('dieter'))!.password_hash;
  await db.pool.query(
    `INSERT INTO inbox_sessions (id_hash, user_name, role, data, expires_at) VALUES (?, 'dieter', 'operator', '{}', CURRENT_TIMESTAMP(3) + INTERVAL 1 HOUR), (?, 'dieter', 'operator', '{}', CURRENT_TIMESTAMP(3) + INTERVAL 1 HOUR)`,
    ['a'.repeat(64), 'b'.repeat(64)],
  );
  await db.pool.query(
    `INSERT INTO inbox_login_throttle (scope, subject, failures, next_attempt_at) VALUES ('account', 'dieter', 7, CURRENT_TIMESTAMP(3) + INTERVAL 15 MINUTE)`,
  );
  const weak = await cli(['inbox', 'users', 'reset-password', 'dieter'], 'password1234\n');
  assert.equal(weak.code, 2);
  assert.equal((await user('dieter'))!.password_hash, before, 'nothing changed');

  const r = await cli(['inbox', 'users', 'reset-password', 'dieter'], 'velvet comet harbour\n');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /password of inbox user dieter reset; 2 open session\(s\) ended/);
  const row = (await user('dieter'))!;
  assert.equal(row.role, 'operator');
  assert.ok(await bcrypt.compare('velvet comet harbour', row.password_hash));
  const left = (await db.pool.query(
    `SELECT (SELECT COUNT(*) FROM inbox_sessions WHERE user_name = 'dieter') AS sessions,
            (SELECT COUNT(*) FROM inbox_login_throttle WHERE subject = 'dieter') AS locks,
            (SELECT COUNT(*) FROM audit_log WHERE event_type = 'inbox_sessions_ended' AND correlation_id = 'inbox-user-dieter') AS audited`,
  )) as Array<{ sessions: number; locks: number; audited: number }>;
  assert.deepEqual(
    { sessions: Number(left[0]!.sessions), locks: Number(left[0]!.locks), audited: Number(left[0]!.audited) },
    { sessions: 0, locks: 0, audited: 1 },
  );

  const unknown = await cli(['inbox', 'users', 'reset-password', 'nobody'], 'velvet comet harbour\n');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no inbox user nobody/);
});

test('sign-out and unlock from the command line', async () => {
  assert.equal((await cli(['inbox', 'users', 'add', 'erik', '--role', 'reviewer'], 'copper lagoon whistle\n')).code, 0);
  await db.pool.query(
    `INSERT INTO inbox_sessions (id_hash, user_name, role, data, expires_at) VALUES (?, 'erik', 'reviewer', '{}', CURRENT_TIMESTAMP(3) + INTERVAL 1 HOUR)`,
    ['c'.repeat(64)],
  );
  const out = await cli(['inbox', 'users', 'sign-out', 'erik'], '');
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /1 open inbox session\(s\) of erik ended/);
  await db.pool.query(`INSERT INTO inbox_login_throttle (scope, subject, failures) VALUES ('account', 'erik', 5)`);
  assert.match((await cli(['inbox', 'users', 'unlock', 'Erik'], '')).stdout, /sign-in failures of Erik cleared/);
  assert.match((await cli(['inbox', 'users', 'unlock', 'erik'], '')).stdout, /erik had no sign-in failures/);
});
