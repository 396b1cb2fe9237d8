/**
 * `email-rag doctor` as an operator runs it (the real CLI process) against real servers: the
 * Temporal dev server, MariaDB, Dovecot, the SMTP listener, the embedder, the codec server; only
 * the LLM is the test double, reached through the real `openai` client. On a working
 * configuration every part is ok and it exits 0; then one part at a time is broken, and the
 * doctor names that part with its fix and exits 1.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { DOCTOR_CHECKS } from '../../src/operations/operations.contract';
import { DOCTOR_VERDICTS } from '../../src/platform/contract';
import type { DoctorPart, DoctorReport } from '../../src/operations/doctor-report';
import { CLEANUP_SCHEDULE_ID, installSchedules, pollScheduleId } from '../../src/operations/schedules';
import { startCodecServer } from '../../src/operations/codec-server.cli';
import { inboxUsersAdd } from '../../src/review-inbox/inbox-users.cli';
import { runCli } from '../support/cli-run';
import { createTestDatabase } from '../support/database';
import { freePort } from '../support/services/ports';
import { startStack, type TestStack } from '../support/stack';

let stack: TestStack;
let knowledgeDir: string;
let codecServer: { close(): Promise<void> } | undefined;
let connection: Connection | undefined;
let client: Client;

before(async () => {
  knowledgeDir = mkdtempSync(path.join(tmpdir(), 'doctor-knowledge-'));
  writeFileSync(path.join(knowledgeDir, 'refunds.md'), '# Refunds\n\nRefunds take five working days.\n');
  stack = await startStack({
    env: {
      KNOWLEDGE_DIR: knowledgeDir,
      PAYLOAD_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      CODEC_TOKEN: randomBytes(16).toString('hex'),
      CODEC_HOST: '127.0.0.1',
      CODEC_PORT: String(await freePort()),
    },
  });
  codecServer = await startCodecServer(stack.config);
  connection = await Connection.connect({ address: stack.config.temporal.address });
  client = new Client({ connection, namespace: stack.config.temporal.namespace });
  await installSchedules(client, stack.config);
  await inboxUsersAdd(stack.config, 'olga', 'operator', 'a long and unguessable passphrase');
});

after(async () => {
  await codecServer?.close();
  await connection?.close();
  await stack?.stop();
  rmSync(knowledgeDir, { recursive: true, force: true });
});

async function doctor(env: Record<string, string> = {}, args: string[] = ['--json']) {
  return runCli({ ...stack.env, ...env }, ['doctor', ...args]);
}

async function doctorJson(env: Record<string, string> = {}): Promise<{ code: number; report: DoctorReport; stderr: string }> {
  const r = await doctor(env);
  assert.ok(r.stdout.trim().startsWith('{'), `JSON expected (exit ${r.code}): ${r.stdout}${r.stderr}`);
  return { code: r.code, report: JSON.parse(r.stdout) as DoctorReport, stderr: r.stderr };
}

function partOf(report: DoctorReport, check: DoctorPart['check'], target?: string): DoctorPart {
  const found = report.parts.find((p) => p.check === check && (target === undefined || p.target === target));
  assert.ok(found, `no part ${check} ${target ?? ''} in ${JSON.stringify(report.parts.map((p) => p.check))}`);
  return found;
}

/** Every part but the named ones is ok: a broken part is named alone. */
function othersOk(report: DoctorReport, broken: Array<DoctorPart['check']>): void {
  const others = report.parts.filter((p) => !broken.includes(p.check) && p.verdict !== DOCTOR_VERDICTS.ok);
  assert.deepEqual(others, [], 'only the broken part is not ok');
}

test('on a working configuration every part is ok and the doctor exits 0', async () => {
  const { code, report, stderr } = await doctorJson();
  const notOk = report.parts.filter((p) => p.verdict !== DOCTOR_VERDICTS.ok);
  assert.deepEqual(notOk, [], stderr);
  assert.equal(code, 0);
  assert.equal(report.exitCode, 0);
  assert.deepEqual(
    [...new Set(report.parts.map((p) => p.check))],
    Object.values(DOCTOR_CHECKS),
    'every kind of part is checked, in this order',
  );
  assert.equal(partOf(report, DOCTOR_CHECKS.mailbox).target, 'default');
  assert.match(partOf(report, DOCTOR_CHECKS.mailbox).detail, /INBOX, Sent/);
  assert.match(partOf(report, DOCTOR_CHECKS.llm).detail, /structured output \(json_schema\) ok, answered in \d+ ms/);
  assert.match(partOf(report, DOCTOR_CHECKS.knowledge).detail, /1 file readable/);
  assert.match(partOf(report, DOCTOR_CHECKS.payloadEncryption).detail, /round trip ok/);
  assert.match(partOf(report, DOCTOR_CHECKS.codecServer).detail, /decodes and encodes/);
  assert.match(partOf(report, DOCTOR_CHECKS.inboxSignIn).detail, /1 user, 1 operator/);
  assert.match(partOf(report, DOCTOR_CHECKS.embedder).detail, /dimensions/);
  const llmRequest = stack.llm.requests.at(-1);
  assert.equal(llmRequest?.body.response_format?.type, 'json_schema', 'the probe asks for structured output as drafts do');
});

test('a wrong IMAP password fails the mailbox with the fix, and exit 1', async () => {
  const { code, report } = await doctorJson({ IMAP_PASSWORD: 'not-the-password' });
  const mailbox = partOf(report, DOCTOR_CHECKS.mailbox, 'default');
  assert.equal(mailbox.verdict, DOCTOR_VERDICTS.fail);
  assert.match(mailbox.detail, /imap login: .*login refused/);
  assert.equal(mailbox.fix, 'correct the IMAP user and password (or OAuth2 sign-in) of mailbox default');
  othersOk(report, [DOCTOR_CHECKS.mailbox]);
  assert.equal(code, 1);
});

test('an LLM server that refuses response_format json_schema fails: every draft would fail permanently', async () => {
  stack.llm.refuseJsonSchema(true);
  try {
    const { code, report } = await doctorJson();
    const llm = partOf(report, DOCTOR_CHECKS.llm);
    assert.equal(llm.verdict, DOCTOR_VERDICTS.fail);
    assert.match(
      llm.detail,
      /refuses response_format json_schema \(HTTP 400: Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.\): every draft would fail permanently/,
    );
    assert.match(llm.fix ?? '', /structured outputs/);
    othersOk(report, [DOCTOR_CHECKS.llm]);
    assert.equal(code, 1);
  } finally {
    stack.llm.refuseJsonSchema(false);
  }
});

test('an LLM that does not answer costs its own part a failure, not the run', async () => {
  let release = (): void => undefined;
  stack.llm.script({ kind: 'hold', until: new Promise<void>((resolve) => (release = resolve)), for: 'doctor_probe' });
  try {
    const { code, report } = await doctorJson({ LLM_TIMEOUT_MS: '1000' });
    const llm = partOf(report, DOCTOR_CHECKS.llm);
    assert.equal(llm.verdict, DOCTOR_VERDICTS.fail);
    assert.match(llm.detail, /does not answer/);
    othersOk(report, [DOCTOR_CHECKS.llm]);
    assert.equal(code, 1);
  } finally {
    release();
  }
});

test('schedules not installed are named in the table, with the command that installs them', async () => {
  await client.schedule.getHandle(pollScheduleId('default')).delete();
  await client.schedule.getHandle(CLEANUP_SCHEDULE_ID).delete();
  try {
    const r = await doctor({}, []);
    assert.equal(r.code, 1, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    const at = lines.findIndex((l) => /^schedules\s/.test(l));
    assert.match(lines[at] ?? '', new RegExp(`^schedules\\s+fail\\s+not installed: ${pollScheduleId('default')}, ${CLEANUP_SCHEDULE_ID}$`));
    assert.match(lines[at + 1] ?? '', /^\s+fix: email-rag schedules install$/);
    assert.match(r.stdout, /^database\s+ok\s/m);
    assert.match(lines.at(-1) ?? '', /^\d+ ok, 0 warn, 1 fail: exit 1$/);
  } finally {
    await installSchedules(client, stack.config);
  }
});

test('a database that misses a migration names it, with email-rag migrate', async () => {
  const scratch = await createTestDatabase('doctor');
  try {
    const [last] = (await scratch.pool.query('SELECT version FROM schema_migrations ORDER BY version DESC LIMIT 1')) as Array<{
      version: string;
    }>;
    assert.ok(last);
    await scratch.pool.query('DELETE FROM schema_migrations WHERE version = ?', [last.version]);
    const { code, report } = await doctorJson({ DATABASE_URL: scratch.url });
    const migrations = partOf(report, DOCTOR_CHECKS.migrations);
    assert.equal(migrations.verdict, DOCTOR_VERDICTS.fail);
    assert.match(migrations.detail, new RegExp(`1 of \\d+ not applied: ${last.version}$`));
    assert.equal(migrations.fix, 'email-rag migrate');
    assert.equal(partOf(report, DOCTOR_CHECKS.database).verdict, DOCTOR_VERDICTS.ok);
    assert.equal(code, 1);
  } finally {
    await scratch.drop();
  }
});
