/**
 * `email-rag ingest` over mbox files and Maildir folders, against a real Temporal dev server,
 * MariaDB and the CLI binary: the variants real exports produce, hostile input, re-runs and a
 * run killed half-way.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { fileEmailId } from '../../src/archive-import/ingest.cli';
import { writeMboxCorpus } from '../../scripts/bench/mbox-corpus';
import { createEmailWorker, type RunningWorker } from '../../workers/email-worker';
import { startStack, type TestStack } from '../support/stack';
import { waitFor } from '../support/wait';
import { workflowBundle } from '../support/workflow-bundle';
import { runCli } from '../support/cli-run';

const LIMIT = 64 * 1024;
let stack: TestStack;
let connection: Connection;
let client: Client;

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCli(stack.env, args);
}

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t') as [string, string, string]);

async function rawOf(id: string): Promise<string | undefined> {
  const rows = (await stack.db.pool.query('SELECT raw FROM raw_messages WHERE email_id = ?', [id])) as Array<{ raw: Buffer }>;
  return rows[0]?.raw.toString('latin1');
}

async function auditCount(eventType: string): Promise<number> {
  const rows = (await stack.db.pool.query('SELECT COUNT(*) AS n FROM audit_log WHERE event_type = ?', [eventType])) as Array<{ n: number }>;
  return Number(rows[0]?.n);
}

const mail = (id: string | null, subject: string, body: string, nl = '\n') =>
  [
    'From: Kunde <kunde@customer.example>',
    'To: support@example.test',
    `Subject: ${subject}`,
    ...(id ? [`Message-ID: <${id}@customer.example>`] : []),
    'Date: Tue, 05 Mar 2024 10:00:00 +0000',
    '',
    body,
    '',
  ].join(nl);

before(async () => {
  stack = await startStack({ env: { MAX_MESSAGE_BYTES: String(LIMIT) } });
  connection = await Connection.connect({ address: stack.config.temporal.address });
  client = new Client({ connection, namespace: 'default' });
});

after(async () => {
  await connection?.close();
  await stack?.stop();
});

test('an mbox with mboxrd quoting, Content-Length, Takeout headers, no Message-ID, an oversized, an unparseable and a cut-off last message', async () => {
  const counted = 'Text\n\nFrom here on unquoted (mboxcl2)\n';
  const noId = mail(null, 'ohne Message-ID', 'Hallo');
  const mbox = [
    `From kunde@customer.example Tue Mar  5 10:00:00 2024\n${mail('rd', 'quoted', 'Hallo\n>From the start\n>>From quoted\nEnde')}\n`,
    `From 1781234567890123456@xxx Tue Mar 05 10:00:00 +0000 2024\nX-GM-THRID: 1781234567890123456\nX-Gmail-Labels: Posteingang,Wichtig\n${mail('takeout', 'takeout', 'Hi')}\n`,
    `From kunde Tue Mar  5 10:00:00 2024\nFrom: k@customer.example\nSubject: cl\nMessage-ID: <cl@customer.example>\nContent-Length: ${counted.length}\n\n${counted}\n`,
    `From kunde Tue Mar  5 10:00:00 2024\n${noId}\n`,
    `From kunde Tue Mar  5 10:00:00 2024\n${mail('huge', 'huge', 'x'.repeat(99).concat('\n').repeat(1000))}\n`,
    `From kunde Tue Mar  5 10:00:00 2024\n\u0000\u0001binary garbage without headers\n\n`,
    `From kunde Tue Mar  5 10:00:00 2024\n${mail('cut', 'cut off', 'Half a sen')}`.replace(/\n$/, ''),
  ].join('');
  const file = path.join(stack.dir, 'Inbox');
  writeFileSync(file, mbox, 'latin1');
  const before = { unparseable: await auditCount('import_unparseable'), truncated: await auditCount('import_truncated') };

  const result = await cli(['ingest', file, '--history']);
  assert.equal(result.code, 1, result.stderr);
  const got = lines(result.stdout);
  assert.deepEqual(
    got.map((l) => [l[1].replace(/[:(].*/, '').trim(), l[2]]),
    [
      ['started', `${file}#1`],
      ['started', `${file}#2`],
      ['started', `${file}#3`],
      ['started', `${file}#4`],
      ['too large', `${file}#5`],
      ['unparseable', `${file}#6`],
      ['started', `${file}#7`],
    ],
    result.stdout,
  );
  assert.match(got[6]![1], /cut short/);
  assert.match(result.stderr, /7 message\(s\) read; 1 file\(s\): 5 started, 0 already known, 1 too large, 0 failed, 1 unparseable/);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');

  assert.equal(await rawOf(got[0]![0]), mail('rd', 'quoted', 'Hallo\nFrom the start\n>From quoted\nEnde'), 'one > removed');
  assert.match((await rawOf(got[1]![0]))!, /^X-GM-THRID: 1781234567890123456\nX-Gmail-Labels: Posteingang,Wichtig\n/);
  assert.ok((await rawOf(got[2]![0]))!.endsWith(`\n\n${counted}`), 'the counted body, its From line included');
  // Without a Message-ID the bytes name the mail, as for a file.
  const hash = createHash('sha256').update(Buffer.from(noId, 'latin1')).digest('hex').slice(0, 32);
  assert.equal(got[3]![0], `email-file-${hash}`);
  assert.equal(await rawOf(got[3]![0]), noId);
  assert.equal(await rawOf(got[6]![0]), mail('cut', 'cut off', 'Half a sen').replace(/\n$/, ''));
  assert.equal(await auditCount('import_unparseable'), before.unparseable + 1);
  assert.equal(await auditCount('import_truncated'), before.truncated + 1);
  const tooLarge = (await stack.db.pool.query(`SELECT status_reason, raw_size FROM emails WHERE id = ?`, [got[4]![0]])) as Array<{
    status_reason: string;
    raw_size: number;
  }>;
  assert.equal(tooLarge[0]?.status_reason, 'too_large');
  assert.ok(tooLarge[0]!.raw_size > LIMIT);
  for (const id of [0, 1, 2, 3, 6].map((i) => got[i]![0])) {
    const input = (await client.workflow.getHandle(id).describe()).status.name;
    assert.ok(input, `workflow ${id} exists`);
  }
});

test('a CRLF mbox keeps its line ends; an empty file imports nothing; a binary file is refused with the reason', async () => {
  const crlf = path.join(stack.dir, 'crlf.mbox');
  const a = mail('crlf-a', 'crlf a', 'Eins', '\r\n');
  const b = mail('crlf-b', 'crlf b', 'Zwei', '\r\n');
  writeFileSync(crlf, `From a Tue Mar  5 10:00:00 2024\r\n${a}\r\nFrom b Tue Mar  5 10:00:00 2024\r\n${b}\r\n`);
  const r = await cli(['ingest', crlf, '--history']);
  assert.equal(r.code, 0, r.stderr);
  const got = lines(r.stdout);
  assert.equal(got.length, 2);
  assert.equal(await rawOf(got[0]![0]), a);
  assert.equal(await rawOf(got[1]![0]), b);

  const empty = path.join(stack.dir, 'empty.mbox');
  writeFileSync(empty, '');
  const e = await cli(['ingest', empty]);
  assert.equal(e.code, 0, e.stderr);
  assert.equal(e.stdout, '');
  assert.match(e.stderr, /0 message\(s\) read; 1 file\(s\): 0 started/);

  const png = path.join(stack.dir, 'photo.png');
  writeFileSync(png, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]));
  const p = await cli(['ingest', png]);
  assert.equal(p.code, 2);
  assert.match(p.stderr, /photo\.png: neither an mbox file \(its first line does not start with "From "\) nor an email/);
  assert.doesNotMatch(p.stderr, /\n\s+at /, 'no stack trace');
});

test('a Maildir with cur/, new/ and a Maildir++ subfolder beside an mbox and an .eml; a re-run after the worker took them skips everything', async () => {
  const root = path.join(stack.dir, 'home');
  const md = path.join(root, 'Maildir');
  for (const d of ['cur', 'new', 'tmp', '.Archiv/cur', '.Archiv/new', '.Archiv/tmp']) mkdirSync(path.join(md, d), { recursive: true });
  writeFileSync(path.join(md, 'cur', '1709632800.M1P1.host:2,S'), mail('md-cur', 'maildir cur', 'a'));
  writeFileSync(path.join(md, 'new', '1709632801.M2P1.host'), mail('md-new', 'maildir new', 'b'));
  writeFileSync(path.join(md, 'tmp', '1709632802.M3P1.host'), mail('md-tmp', 'delivery in progress', 'c'));
  writeFileSync(path.join(md, '.Archiv', 'cur', '1709632803.M4P1.host:2,RS'), mail('md-sub', 'maildir++ sub', 'd'));
  writeFileSync(path.join(md, 'dovecot-uidlist'), '3 V1709632800 N5\n');
  writeFileSync(path.join(root, 'Sent'), `From x Tue Mar  5 10:00:00 2024\n${mail('mixed-mbox', 'sent mbox', 'e')}\n`);
  writeFileSync(path.join(root, 'Sent.msf'), '// <!-- <mdb:mork:z v="1.4"/> -->');
  writeFileSync(path.join(root, 'single.eml'), mail('mixed-eml', 'an eml', 'f'));

  const first = await cli(['ingest', root, '--history']);
  assert.equal(first.code, 0, first.stderr);
  const got = lines(first.stdout);
  assert.deepEqual(
    got.map((l) => [l[1], path.relative(root, l[2])]),
    [
      ['started', 'Maildir/cur/1709632800.M1P1.host:2,S'],
      ['started', 'Maildir/new/1709632801.M2P1.host'],
      ['started', 'Maildir/.Archiv/cur/1709632803.M4P1.host:2,RS'],
      ['started', 'Sent#1'],
      ['started', 'single.eml'],
    ],
  );
  assert.match(first.stderr, /5 message\(s\) read; 5 file\(s\): 5 started, 0 already known, 0 too large, 0 failed, 0 unparseable; 2 other/);

  // The worker indexes them (history: no drafts); the re-run then finds every one in already.
  const worker: RunningWorker = await createEmailWorker(stack.config, { workflowBundle: await workflowBundle() });
  const done = worker.run();
  try {
    for (const [id] of got) {
      await waitFor(`${id} past intake`, async () => {
        const rows = (await stack.db.pool.query('SELECT status FROM emails WHERE id = ?', [id])) as Array<{ status: string }>;
        return rows[0]?.status !== undefined && rows[0].status !== 'fetched';
      });
      assert.equal(((await client.workflow.getHandle(id).result()) as { status: string }).status !== 'awaiting_approval', true);
    }
  } finally {
    await worker.shutdown();
    await done.catch(() => undefined);
  }
  const drafts = (await stack.db.pool.query('SELECT COUNT(*) AS n FROM drafts WHERE email_id IN (?)', [got.map((l) => l[0])])) as Array<{
    n: number;
  }>;
  assert.equal(Number(drafts[0]?.n), 0, '--history: indexed, not answered');
  const again = await cli(['ingest', root, '--history']);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(
    lines(again.stdout).map((l) => l[1]),
    got.map(() => 'already known'),
  );
  assert.match(again.stderr, /0 started, 5 already known/);
});

test('an import killed half-way and run again: every message in exactly once', async () => {
  const file = path.join(stack.dir, 'takeout.mbox');
  const N = 300;
  await writeMboxCorpus(file, { messages: N, seed: 7 });
  // The corpus names its messages <archive-i@customer.example>: the ids are known up front.
  const expected = Array.from({ length: N }, (_, i) => fileEmailId(Buffer.from(`Message-ID: <archive-${i}@customer.example>\n\n`)));
  const countRows = async () =>
    Number(((await stack.db.pool.query(`SELECT COUNT(*) AS n FROM emails WHERE id IN (?)`, [expected])) as Array<{ n: number }>)[0]?.n);
  const start = await countRows();
  assert.equal(start, 0);
  const child = spawn(process.execPath, ['bin/email-rag.js', 'ingest', file, '--history'], {
    env: { ...process.env, ...stack.env },
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitFor('a third of the archive in', async () => (await countRows()) - start >= N / 3, 120_000, 50);
  child.kill('SIGKILL');
  await exited;
  const atKill = (await countRows()) - start;
  assert.ok(atKill < N, `killed half-way (${atKill} of ${N} in)`);

  const again = await cli(['ingest', file, '--history']);
  assert.equal(again.code, 0, again.stderr);
  const got = lines(again.stdout);
  assert.equal(got.length, N);
  const ids = new Set(got.map((l) => l[0]));
  assert.deepEqual([...ids].sort(), [...expected].sort(), 'one id per message');
  const m = /(\d+) started, (\d+) already known/.exec(again.stderr);
  assert.equal(Number(m?.[1]) + Number(m?.[2]), N);
  assert.ok(Number(m?.[2]) >= atKill - 4, `what was in is skipped (${m?.[2]} known, ${atKill} in at the kill)`);
  const rows = (await stack.db.pool.query(`SELECT id FROM emails WHERE id IN (?)`, [[...ids]])) as Array<{ id: string }>;
  assert.equal(rows.length, N, 'every message stored once');
  for (const id of ids) await client.workflow.getHandle(id).describe();
});
