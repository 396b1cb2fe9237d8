/**
 * The backup service of the container stack (docs/backup.md), without containers: the scripts run
 * as the app image runs them (test/support/backup-tools.ts) against a real Temporal dev server
 * persisting to its SQLite file in WAL mode (as deploy/container/temporal-server.sh) and the host's
 * MariaDB, through a user with a password given as a file (as the compose stack's email_rag user).
 * `email-rag-backup --once` pauses the intake, snapshots Temporal while the server runs and
 * workflows are being started, dumps MariaDB, takes the state and knowledge folders, spamd's Bayes
 * database and the payload keys, and resumes; `email-rag-restore` puts it into a new database and a new SQLite file, and a
 * dev server started on that file has the workflows and the paused intake, which `schedules
 * install` (the stack's init) leaves paused and `intake resume` lifts. Then the refusals (a
 * tampered file, a target in use, keys missing), retention, failed runs and the --every loop.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@temporalio/client';
import { loadConfig } from '../../src/config';
import { connectTemporalClient } from '../../src/platform/temporal-connection';
import { createPool, type Pool } from '../../src/platform/pool.mariadb';
import { dropDatabase, migrate } from '../../src/platform/migrate.mariadb';
import { pollScheduleId } from '../../src/operations/schedules';
import { DEFAULT_MAILBOX_ID } from '../../src/mailboxes/mailbox-registry';
import { createTestDatabase } from '../support/database';
import { imageBin, runTool, startTool, type ToolRun } from '../support/backup-tools';
import { startTemporalDevServer, type TemporalDevServer } from '../support/services/temporal-dev-server';
import { waitFor } from '../support/wait';

const NAME = /^\d{4}-\d\d-\d\dT\d{6}Z$/;
/** The uid of the images' users (email-rag and temporal): the owner a restore must give back. */
const IMAGE_UID = 10001;
const isRoot = process.getuid?.() === 0;

let dir: string;
let bin: string;
let temporal: TemporalDevServer;
let restoredTemporal: TemporalDevServer | undefined;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let dbUser: string;
let restoredUrl: string;
let restoredPool: Pool | undefined;
const closing: Array<() => Promise<unknown>> = [];
/** The container's settings (compose's x-app-env and the backup service's own). */
let env: Record<string, string>;

const complete = (backups: string): string[] =>
  readdirSync(backups).filter((n) => NAME.test(n) && existsSync(path.join(backups, n, 'SHA256SUMS')));
const ok = (r: ToolRun, what: string): ToolRun => {
  assert.equal(r.code, 0, `${what} failed:\n${r.stdout}\n${r.stderr}`);
  return r;
};

let keys: string;

/** The Bayes database's path prefix (bayes_path), and how many spam messages it learnt (`sa-learn --dump magic`). */
const BAYES = () => path.join(dir, 'spamd-data/bayes/bayes');
function learntSpam(): number {
  const dump = spawnSync('sa-learn', ['--dbpath', BAYES(), '--dump', 'magic'], { encoding: 'utf8' });
  assert.equal(dump.status, 0, `sa-learn --dump magic: ${dump.stderr}`);
  const line = dump.stdout.split('\n').find((l) => /non-token data: nspam$/.test(l));
  return Number(line?.trim().split(/\s+/)[2]);
}

async function connect(address: string, dbUrl: string): Promise<Client> {
  const config = loadConfig({ ...env, TEMPORAL_ADDRESS: address, DATABASE_URL: dbUrl, PAYLOAD_KEYS: keys, IMAP_PASSWORD: 'secret' });
  const { client, connection } = await connectTemporalClient(config);
  closing.push(() => connection.close());
  return client;
}

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-backup-service-'));
  bin = imageBin(dir);
  temporal = await startTemporalDevServer({ dataDir: path.join(dir, 'temporal-data'), headless: true });
  db = await createTestDatabase('backup');
  // The stack's database user: every right on its database, a password the URL does not carry.
  const password = `pw "${randomBytes(6).toString('hex')}" x`;
  dbUser = `bk_${randomBytes(4).toString('hex')}`;
  const dbName = new URL(db.url).pathname.slice(1);
  restoredUrl = db.url.replace(/\/([^/]+)$/, '/$1_restored');
  for (const host of ['%', 'localhost']) {
    await db.pool.query(`CREATE USER '${dbUser}'@'${host}' IDENTIFIED BY ?`, [password]);
    for (const name of [dbName, `${dbName}_restored`])
      await db.pool.query(`GRANT ALL PRIVILEGES ON \`${name}\`.* TO '${dbUser}'@'${host}'`);
  }
  const secrets = path.join(dir, 'run-secrets');
  mkdirSync(secrets);
  keys = `k1:${randomBytes(32).toString('base64')}`;
  writeFileSync(path.join(secrets, 'db_password'), `${password}\n`);
  writeFileSync(path.join(secrets, 'payload_keys'), `${keys}\n`);
  writeFileSync(path.join(secrets, 'imap_password'), 'secret\n');
  // The state volume (registry, OAuth2 token files) and the knowledge folder.
  mkdirSync(path.join(dir, 'app/state/tokens'), { recursive: true });
  mkdirSync(path.join(dir, 'app/knowledge'), { recursive: true });
  writeFileSync(path.join(dir, 'app/state/mailboxes.yaml'), 'version: 1\nmailboxes: []\n');
  writeFileSync(path.join(dir, 'app/state/tokens/support.json'), '{"refresh_token":"r1"}\n', { mode: 0o600 });
  writeFileSync(path.join(dir, 'app/knowledge/faq.md'), '# FAQ\n');
  if (isRoot) chownSync(path.join(dir, 'app/state/tokens/support.json'), IMAGE_UID, IMAGE_UID);
  // spamd's Bayes database (compose's volume spamd-data, /var/lib/spamd/bayes): one spam message learnt.
  mkdirSync(path.join(dir, 'spamd-data/bayes'), { recursive: true });
  const learnt = spawnSync('sa-learn', [
    '--dbpath',
    BAYES(),
    '--spam',
    path.join(__dirname, '../fixtures/spam-corpus/spamassassin/spam/015'),
  ]);
  assert.equal(learnt.status, 0, `sa-learn --spam: ${String(learnt.stderr)}`);
  assert.equal(learntSpam(), 1);
  mkdirSync(path.join(dir, 'backups'));
  const user = new URL(db.url);
  user.username = dbUser;
  user.password = '';
  env = {
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: `email-rag-backup-${path.basename(dir)}`,
    DATABASE_URL: user.toString(),
    DATABASE_PASSWORD_FILE: path.join(secrets, 'db_password'),
    PAYLOAD_KEYS_FILE: path.join(secrets, 'payload_keys'),
    IMAP_HOST: '127.0.0.1',
    IMAP_USER: 'support@example.test',
    IMAP_PASSWORD_FILE: path.join(secrets, 'imap_password'),
    SMTP_HOST: '127.0.0.1',
    SMTP_FROM: 'support@example.test',
    // No worker runs here: a poll run the schedule started would never end, and the pause waits for it.
    IMAP_POLL_INTERVAL_SECONDS: '3600',
    TEMPORAL_DB: path.join(dir, 'temporal-data', 'temporal.db'),
    BACKUP_DIR: path.join(dir, 'backups'),
    BACKUP_FILES: `${path.join(dir, 'app/state')}:${path.join(dir, 'app/knowledge')}:${path.join(dir, 'spamd-data/bayes')}`,
  };
});

after(async () => {
  for (const close of closing) await close().catch(() => undefined);
  await restoredPool?.end().catch(() => undefined);
  await restoredTemporal?.stop();
  await temporal?.stop();
  await dropDatabase(restoredUrl).catch(() => undefined);
  for (const host of ['%', 'localhost']) await db?.pool.query(`DROP USER IF EXISTS '${dbUser}'@'${host}'`).catch(() => undefined);
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test(
  'a backup of the running stack restores into a new database and SQLite file; the restored server has the workflows',
  { timeout: 600_000 },
  async () => {
    // The stack's init: schedules and the IDLE watcher; then emails in flight (no worker: they wait).
    ok(await runTool(bin, 'email-rag', ['schedules', 'install'], env), 'schedules install');
    const client = await connect(temporal.address, db.url);
    const start = (id: string) =>
      client.workflow.start('EmailWorkflow', { taskQueue: `${env.TEMPORAL_TASK_QUEUE}-nobody`, workflowId: id, args: [{ probe: id }] });
    for (const n of [1, 2, 3]) await start(`backup-probe-${n}`);

    // The server goes on writing while the backup runs: workflows are started throughout.
    let writing = true;
    let started = 0;
    const writer = (async () => {
      while (writing) {
        await start(`backup-during-${(started += 1)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const backupStart = Date.now();
    const backup = await runTool(bin, 'email-rag-backup', ['--once', '--keep', '3'], env);
    const backupSeconds = (Date.now() - backupStart) / 1000;
    writing = false;
    await writer;
    ok(backup, 'email-rag-backup --once');
    const [name, ...others] = complete(env.BACKUP_DIR!);
    assert.ok(name && others.length === 0, `one complete backup: ${readdirSync(env.BACKUP_DIR!).join(', ')}`);
    const folder = path.join(env.BACKUP_DIR!, name);
    assert.equal(statSync(folder).mode & 0o777, 0o700, 'the backup folder is readable by its owner only');
    const manifest = readFileSync(path.join(folder, 'MANIFEST'), 'utf8');
    assert.match(manifest, /\tintake\tpaused by this backup: 5 schedule\(s\)/);
    assert.match(manifest, /\ttemporal\tsqlite VACUUM INTO of .* \(journal_mode wal\)/, 'the server writes in WAL mode');
    assert.match(manifest, /\tkeys\tpayload keys k1 /);
    assert.match(manifest, /\tcomplete\ttemporal mariadb files keys$/m);
    const order = [...manifest.matchAll(/^\S+\t(\w+)\t/gm)].map((m) => m[1]);
    assert.deepEqual(order, ['intake', 'temporal', 'mariadb', 'files', 'keys', 'complete'], 'Temporal before MariaDB, both while paused');
    assert.deepEqual(
      readFileSync(path.join(folder, 'SHA256SUMS'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split('  ')[1]),
      ['temporal.db', 'mariadb.sql', 'files.tar', 'payload_keys'],
    );
    // The backup resumed the intake it paused.
    assert.equal((await client.schedule.getHandle(pollScheduleId(DEFAULT_MAILBOX_ID)).describe()).state.paused, false);
    console.log(`backup of the running stack: ${backupSeconds.toFixed(1)} s, ${started} workflows started meanwhile`);

    // A fresh stack: a new SQLite file, a new database, the state and knowledge folders gone.
    rmSync(path.join(dir, 'app'), { recursive: true });
    rmSync(path.join(dir, 'spamd-data'), { recursive: true });
    const restoredDb = path.join(dir, 'temporal-restored', 'temporal.db');
    const restoreEnv = { ...env, TEMPORAL_DB: restoredDb, DATABASE_URL: env.DATABASE_URL!.replace(/\/([^/?]+)$/, '/$1_restored') };
    const restoreStart = Date.now();
    ok(await runTool(bin, 'email-rag-restore', [folder], restoreEnv), 'email-rag-restore');
    const restoreSeconds = (Date.now() - restoreStart) / 1000;
    const token = statSync(path.join(dir, 'app/state/tokens/support.json'));
    assert.equal(token.mode & 0o777, 0o600, 'a token file comes back readable by its owner only');
    if (isRoot) assert.equal(token.uid, IMAGE_UID, 'and with its owner');
    assert.equal(readFileSync(path.join(dir, 'app/knowledge/faq.md'), 'utf8'), '# FAQ\n');
    assert.equal(learntSpam(), 1, "spamd's Bayes database comes back with what the team's decisions taught it");
    assert.deepEqual((await migrate(restoredUrl)).applied, [], 'the dump holds every migration');
    restoredPool = createPool(restoredUrl, 2);
    const tables = async (p: Pool) =>
      Number(
        ((await p.query('SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = DATABASE()')) as Array<{ n: number }>)[0]!
          .n,
      );
    assert.equal(await tables(restoredPool), await tables(db.pool));

    const serverStart = Date.now();
    restoredTemporal = await startTemporalDevServer({ dataDir: path.dirname(restoredDb), headless: true });
    console.log(
      `restore: ${restoreSeconds.toFixed(1)} s; the dev server on the restored file answering: ${((Date.now() - serverStart) / 1000).toFixed(1)} s`,
    );
    const restored = await connect(restoredTemporal.address, restoredUrl);
    for (const n of [1, 2, 3])
      assert.equal((await restored.workflow.getHandle(`backup-probe-${n}`).describe()).status.name, 'RUNNING', `probe ${n}`);
    // The snapshot is one moment: of the workflows started one after another during the backup, it
    // holds those up to some point and none after.
    const present: boolean[] = [];
    for (let n = 1; n <= started; n += 1)
      present.push(
        await restored.workflow
          .getHandle(`backup-during-${n}`)
          .describe()
          .then(
            () => true,
            () => false,
          ),
      );
    const held = present.indexOf(false) === -1 ? present.length : present.indexOf(false);
    assert.deepEqual(present.slice(held), Array<boolean>(present.length - held).fill(false), 'no workflow after the first one missing');
    console.log(`the snapshot holds ${held} of the ${started} workflows started during the backup`);

    // The snapshot's intake is paused; the stack's init (schedules install) leaves it so, resume lifts it.
    const poll = () => restored.schedule.getHandle(pollScheduleId(DEFAULT_MAILBOX_ID)).describe();
    assert.equal((await poll()).state.paused, true);
    const restoredEnv = { ...env, TEMPORAL_ADDRESS: restoredTemporal.address, DATABASE_URL: restoreEnv.DATABASE_URL };
    const install = ok(await runTool(bin, 'email-rag', ['schedules', 'install'], restoredEnv), 'schedules install');
    assert.match(install.stderr, /held by an intake pause until email-rag intake resume: default/);
    assert.equal((await poll()).state.paused, true, 'install keeps the intake paused');
    const resumed = ok(await runTool(bin, 'email-rag', ['intake', 'resume'], restoredEnv), 'intake resume');
    assert.match(resumed.stdout, /schedules resumed: .*imap-poll-default/);
    assert.match(resumed.stdout, /IDLE watchers started: watch-default/);
    assert.equal((await poll()).state.paused, false);

    // Refusals, each before anything is written.
    const again = await runTool(bin, 'email-rag-restore', [folder], restoreEnv);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /temporal\.db exists: restore into a new file, or give --force/);
    const inUse = await runTool(bin, 'email-rag-restore', [folder, '--force'], restoreEnv);
    assert.equal(inUse.code, 1);
    assert.match(inUse.stderr, /is in use: stop the Temporal server first/);
    const onlyDb = await runTool(bin, 'email-rag-restore', [folder, 'mariadb'], restoreEnv);
    assert.match(onlyDb.stderr, /database \S+_restored has \d+ table\(s\): restore into an empty or new database, or give --force/);
    const otherKeys = {
      ...restoreEnv,
      PAYLOAD_KEYS: `k2:${randomBytes(32).toString('base64')}`,
      TEMPORAL_DB: path.join(dir, 'nowhere', 'temporal.db'),
    };
    const noKey = await runTool(bin, 'email-rag-restore', [folder], otherKeys);
    assert.match(noKey.stderr, /payload keys lack key\(s\) k1 of the backup/);
    const tampered = path.join(dir, 'tampered');
    cpSync(folder, tampered, { recursive: true });
    const dump = readFileSync(path.join(tampered, 'mariadb.sql'));
    dump.writeUInt8(dump.readUInt8(dump.length - 2) ^ 1, dump.length - 2);
    writeFileSync(path.join(tampered, 'mariadb.sql'), dump);
    const refused = await runTool(bin, 'email-rag-restore', [tampered], {
      ...restoreEnv,
      TEMPORAL_DB: path.join(dir, 'nowhere', 'temporal.db'),
    });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /does not match its SHA256SUMS: refused/);
    assert.equal(existsSync(path.join(dir, 'nowhere')), false, 'a refused restore writes nothing');

    // With the restored server stopped, --force replaces its file and the database.
    await restoredTemporal.stop();
    restoredTemporal = undefined;
    const knowledge = path.join(dir, 'app/knowledge');
    const readOnly = (): boolean =>
      spawnSync('mount', ['--bind', knowledge, knowledge]).status === 0 &&
      spawnSync('mount', ['-o', 'remount,bind,ro', knowledge]).status === 0;
    writeFileSync(path.join(knowledge, 'local.md'), 'not in the backup\n');
    if (isRoot && readOnly()) {
      // A read-only mount (as the apps mount their configuration folder) that differs from the
      // backup: refused before anything is written.
      try {
        const refusedRo = await runTool(bin, 'email-rag-restore', [folder, '--force'], restoreEnv);
        assert.equal(refusedRo.code, 1);
        assert.match(refusedRo.stderr, /app\/knowledge cannot be written by uid 0 \(a read-only mount\?\) and differs from the backup/);
        assert.ok((await tables(restoredPool)) > 0, 'the database was left as it was');
      } finally {
        spawnSync('umount', [knowledge]);
      }
      // Put in place as the backup has it (on the host), it is left as it is and the rest restored.
      rmSync(path.join(knowledge, 'local.md'));
      assert.ok(readOnly());
      try {
        const asIs = ok(await runTool(bin, 'email-rag-restore', [folder, '--force'], restoreEnv), 'restore beside a read-only folder');
        assert.match(asIs.stdout, /app\/knowledge is read-only and as in the backup: left as it is/);
      } finally {
        spawnSync('umount', [knowledge]);
      }
      console.log('a read-only mount: refused when it differs from the backup, left as it is when it does not');
    } else console.log('the read-only mount case is skipped: it needs root and mount');
    ok(await runTool(bin, 'email-rag-restore', [folder, '--force'], restoreEnv), 'email-rag-restore --force');
  },
);

test('retention keeps the newest complete backups; a failed run leaves nothing that looks complete', { timeout: 300_000 }, async () => {
  const backups = path.join(dir, 'retention');
  mkdirSync(backups);
  const files = path.join(dir, 'retention-files');
  mkdirSync(files);
  writeFileSync(path.join(files, 'a'), 'a');
  // A `?` path that is not there (spamd scaled to 0 has no Bayes folder) is left out, not an error.
  const e = { ...env, BACKUP_DIR: backups, BACKUP_FILES: `${files}:?${path.join(dir, 'no-spamd-data')}` };
  // A run killed before its end left this; a folder copied in by hand is none of the tool's business.
  mkdirSync(path.join(backups, '2020-01-01T000000Z.partial'));
  mkdirSync(path.join(backups, 'copied-by-hand'));
  const names: string[] = [];
  for (let i = 0; i < 4; i += 1) {
    const r = ok(await runTool(bin, 'email-rag-backup', ['--once', '--keep', '2', 'files'], e), 'email-rag-backup --once files');
    names.push(/backup (\S+) complete/.exec(r.stdout)![1]!);
    if (i === 0) assert.match(r.stdout, /removed 2020-01-01T000000Z\.partial, left by a run that was cut off/);
    if (i === 0) assert.match(r.stdout, /files: \S+no-spamd-data does not exist \(optional\): left out/);
  }
  assert.deepEqual(complete(backups), names.slice(-2), 'the newest two are kept');
  assert.deepEqual(
    readdirSync(backups)
      .filter((n) => !n.startsWith('.'))
      .sort(),
    [...names.slice(-2), 'copied-by-hand'].sort(),
  );

  // The database cannot be reached: the run fails, says why, and leaves no folder.
  const unreachable = { ...e, DATABASE_URL: 'mariadb://email_rag@127.0.0.1:1/email_rag' };
  const failed = await runTool(bin, 'email-rag-backup', ['--once', '--keep', '2', 'mariadb', 'files'], unreachable);
  assert.notEqual(failed.code, 0);
  assert.match(failed.stderr, /ERROR: mariadb-dump of email_rag failed/);
  assert.deepEqual(complete(backups), names.slice(-2));
  assert.deepEqual(
    readdirSync(backups).filter((n) => n.endsWith('.partial')),
    [],
    'no partial folder stays behind',
  );
  const client = await connect(temporal.address, db.url);
  const poll = await client.schedule.getHandle(pollScheduleId(DEFAULT_MAILBOX_ID)).describe();
  assert.equal(poll.state.paused, false, 'the failed run resumed the intake it had paused');

  // A run killed while it held the intake paused: the next run resumes it first.
  ok(await runTool(bin, 'email-rag', ['intake', 'pause', '--by', 'backup'], e), 'intake pause');
  writeFileSync(path.join(backups, '.intake-paused'), '2026-01-01T000000Z\n');
  const next = ok(await runTool(bin, 'email-rag-backup', ['--once', '--keep', '2', 'files'], e), 'the run after a killed one');
  assert.match(next.stdout, /the run 2026-01-01T000000Z was cut off with the intake paused: resuming it/);
  assert.equal((await client.schedule.getHandle(pollScheduleId(DEFAULT_MAILBOX_ID)).describe()).state.paused, false);
  assert.equal(existsSync(path.join(backups, '.intake-paused')), false);

  // Bad settings are refused with what to fix.
  const bad = await runTool(bin, 'email-rag-backup', ['--every', '6x', '--keep', '2'], e);
  assert.match(bad.stderr, /--every \(BACKUP_INTERVAL\) takes a whole number and a unit s, m, h or d, such as 6h: '6x'/);
  const noKeep = await runTool(bin, 'email-rag-backup', ['--every', '6h'], e);
  assert.match(noKeep.stderr, /--every needs --keep N \(or BACKUP_KEEP\)/);
  const part = await runTool(bin, 'email-rag-backup', ['--once', 'tempral'], e);
  assert.match(part.stderr, /unknown part 'tempral'/);
});

test('--every: a failed run is logged and tried again at the next tick; SIGTERM ends the loop', { timeout: 300_000 }, async () => {
  const backups = path.join(dir, 'loop');
  mkdirSync(backups);
  const files = path.join(dir, 'loop-files');
  // BACKUP_FILES names a folder that is not there yet: the first runs fail.
  const loop = startTool(bin, 'email-rag-backup', ['files'], {
    ...env,
    BACKUP_DIR: backups,
    BACKUP_FILES: files,
    BACKUP_INTERVAL: '2s',
    BACKUP_KEEP: '2',
  });
  try {
    await waitFor(
      'a failed run',
      async () => /ERROR: the backup run failed \(exit 1, the reason above\); nothing of it was kept; next try at/.test(loop.output()),
      120_000,
    );
    assert.match(loop.output(), /ERROR: BACKUP_FILES names \S+loop-files, which does not exist/);
    assert.deepEqual(
      readdirSync(backups).filter((n) => n !== '.lock'),
      [],
    );
    mkdirSync(files);
    await waitFor('two complete backups', async () => complete(backups).length >= 2, 120_000);
  } finally {
    loop.child.kill('SIGTERM');
  }
  const end = await loop.done;
  assert.equal(end.code, 0, end.stderr);
  assert.match(end.stdout, /email-rag-backup: stopped/);
  assert.equal(complete(backups).length, 2, 'a stop lets the run end, retention included');

  // The service's health check: the newest complete backup is younger than two intervals.
  const healthy = await runTool(bin, 'email-rag-backup', ['--check'], { ...env, BACKUP_DIR: backups, BACKUP_INTERVAL: '1h' });
  assert.equal(healthy.code, 0, healthy.stderr);
  assert.match(healthy.stdout, /the newest complete backup, \S+, is \d+ min old/);
  const none = await runTool(bin, 'email-rag-backup', ['--check'], { ...env, BACKUP_DIR: files, BACKUP_INTERVAL: '1h' });
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no complete backup in \S+ yet/);
  assert.deepEqual(
    readdirSync(backups).filter((n) => n.endsWith('.partial')),
    [],
  );
});
