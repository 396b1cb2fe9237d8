/** `email-rag doctor` without servers: how findings become verdicts, the exit code, the table, the runner's limits. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DOCTOR_CHECKS } from '../../src/operations/operations.contract';
import { DOCTOR_VERDICTS } from '../../src/platform/contract';
import { doctorReport, fail, ok, warn, worst, type DoctorPart } from '../../src/operations/doctor-report';
import { renderDoctorReport } from '../../src/operations/doctor-render';
import { runChecks } from '../../src/operations/doctor-runner';
import { codecServerFinding, migrationsFinding, schedulesFinding, searchAttributesFinding } from '../../src/operations/doctor-checks';
import { embedderFinding, inboxUsersFinding, mailboxFinding } from '../../src/operations/doctor-service-checks';
import { llmFinding } from '../../src/drafting/llm-check';
import { SEARCH_ATTRIBUTES } from '../../src/platform/contract';

const part = (check: DoctorPart['check'], finding: ReturnType<typeof ok>, target?: string): DoctorPart => ({
  check,
  ...(target ? { target } : {}),
  ...finding,
  ms: 1,
});

test('the worst verdict decides: a failure exits 1, a warning only with --strict', () => {
  assert.equal(worst([]), DOCTOR_VERDICTS.ok);
  const warned = [part(DOCTOR_CHECKS.database, ok('up')), part(DOCTOR_CHECKS.knowledge, warn('empty', 'add files'))];
  assert.equal(doctorReport(warned, false).exitCode, 0);
  assert.equal(doctorReport(warned, false).verdict, DOCTOR_VERDICTS.warn);
  assert.equal(doctorReport(warned, true).exitCode, 1);
  const failed = [...warned, part(DOCTOR_CHECKS.schedules, fail('not installed: cleanup-stuck-jobs', 'email-rag schedules install'))];
  const report = doctorReport(failed, false);
  assert.equal(report.exitCode, 1);
  assert.deepEqual(report.counts, { ok: 1, warn: 1, fail: 1 });
});

test('the parts print in the order of the checks, mailboxes in the order given, each fix beneath its part', () => {
  const report = doctorReport(
    [
      part(DOCTOR_CHECKS.inboxSignIn, ok('2 users, 1 operator')),
      part(DOCTOR_CHECKS.mailbox, fail('imap login: refused', 'correct the IMAP password of mailbox b'), 'b'),
      part(DOCTOR_CHECKS.mailbox, ok('IMAP fine'), 'a'),
      part(DOCTOR_CHECKS.database, ok('answers')),
    ],
    false,
  );
  assert.deepEqual(
    report.parts.map((p) => p.target ?? p.check),
    [DOCTOR_CHECKS.database, 'b', 'a', DOCTOR_CHECKS.inboxSignIn],
  );
  const text = renderDoctorReport(report);
  const lines = text.split('\n');
  assert.match(lines[0]!, /^part\s+verdict\s+detail$/);
  const failing = lines.findIndex((l) => l.startsWith('mailbox b '));
  assert.match(lines[failing]!, /^mailbox b\s+fail\s+imap login: refused$/);
  assert.match(lines[failing + 1]!, /^\s+fix: correct the IMAP password of mailbox b$/);
  assert.ok(!text.includes('fix: IMAP fine'), 'an ok part has no fix line');
  assert.equal(lines.at(-1), '3 ok, 0 warn, 1 fail: exit 1');
});

test('the runner fails a check that throws or outlasts its limit, with its fix, and keeps the others', async () => {
  const parts = await runChecks([
    { check: DOCTOR_CHECKS.database, timeoutMs: 1_000, fix: 'start MariaDB', run: async () => ok('answers') },
    { check: DOCTOR_CHECKS.llm, timeoutMs: 50, fix: 'start the LLM server', run: () => new Promise(() => undefined) },
    {
      check: DOCTOR_CHECKS.knowledge,
      timeoutMs: 1_000,
      fix: 'check KNOWLEDGE_DIR',
      run: () => Promise.reject(new Error('EACCES: permission denied\nstack')),
    },
  ]);
  assert.deepEqual(
    parts.map((p) => [p.check, p.verdict, p.detail, p.fix]),
    [
      [DOCTOR_CHECKS.database, 'ok', 'answers', undefined],
      [DOCTOR_CHECKS.llm, 'fail', 'no answer within 50 ms', 'start the LLM server'],
      [DOCTOR_CHECKS.knowledge, 'fail', 'EACCES: permission denied', 'check KNOWLEDGE_DIR'],
    ],
  );
});

test('missing migrations, search attributes and schedules are named, with the command that fixes them', () => {
  const m = migrationsFinding({ known: 3, applied: ['001_a'], missing: ['002_b', '003_c'], changed: [], unknown: [] });
  assert.deepEqual([m.verdict, m.detail, m.fix], ['fail', '2 of 3 not applied: 002_b, 003_c', 'email-rag migrate']);
  assert.equal(migrationsFinding({ known: 1, applied: ['001_a'], missing: [], changed: [], unknown: [] }).verdict, 'ok');

  const all = new Map(Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => [name, type.toUpperCase()]));
  assert.equal(searchAttributesFinding(all).verdict, 'ok');
  all.delete('NeedsHuman');
  const sa = searchAttributesFinding(all);
  assert.equal(sa.verdict, 'fail');
  assert.match(sa.detail, /not registered: NeedsHuman/);
  assert.equal(sa.fix, 'email-rag temporal setup');

  const s = schedulesFinding([
    { id: 'imap-poll-default', state: 'missing' },
    { id: 'cleanup-stuck-jobs', state: 'installed' },
  ]);
  assert.deepEqual([s.verdict, s.detail, s.fix], ['fail', 'not installed: imap-poll-default', 'email-rag schedules install']);
  assert.equal(schedulesFinding([{ id: 'resend-approved', state: 'paused' }]).verdict, 'warn');
});

test('an LLM that refuses json_schema fails and says every draft would fail; a slow one warns', () => {
  const llm = { baseUrl: 'http://llm/v1', model: 'm', timeoutMs: 1_000 };
  const refused = llmFinding(llm, {
    outcome: 'refused',
    status: 400,
    message: "'response_format' of type 'json_schema' is not supported",
    ms: 5,
  });
  assert.equal(refused.verdict, 'fail');
  assert.match(refused.detail, /refuses response_format json_schema .*every draft would fail permanently/);
  assert.match(refused.fix ?? '', /structured outputs/);
  assert.equal(llmFinding(llm, { outcome: 'structured', model: 'm', ms: 100 }).verdict, 'ok');
  assert.equal(llmFinding(llm, { outcome: 'structured', model: 'm', ms: 800 }).verdict, 'warn');
  assert.equal(llmFinding(llm, { outcome: 'unstructured', model: 'm', ms: 5, content: 'Sure!' }).verdict, 'fail');
  assert.match(llmFinding(llm, { outcome: 'refused', status: 401, message: 'bad key', ms: 5 }).fix ?? '', /LLM_API_KEY/);
});

test('mailbox, embedder, codec server and inbox findings', () => {
  const refused = mailboxFinding('support', [
    { step: 'imap login', ok: false, detail: 'u@h:1: login refused (Authentication failed.): check the user and the password' },
  ]);
  assert.equal(refused.verdict, 'fail');
  assert.equal(refused.fix, 'correct the IMAP user and password (or OAuth2 sign-in) of mailbox support');
  const fine = mailboxFinding('support', [
    { step: 'imap login', ok: true, detail: 'u@h:1' },
    { step: 'imap folder INBOX', ok: true, detail: 'exists' },
    { step: 'imap sent folder Sent', ok: true, detail: 'exists' },
    { step: 'smtp connect', ok: true, detail: 'h:2 greeted, EHLO answered' },
  ]);
  assert.deepEqual([fine.verdict, fine.detail], ['ok', 'IMAP u@h:1 (INBOX, Sent); SMTP h:2 greeted, EHLO answered']);

  const answer = {
    mode: 'remote' as const,
    model: 'e5',
    inputType: 'none' as const,
    description: 'remote e5',
    ok: true,
    dimensions: 384,
    ms: 9,
  };
  assert.equal(embedderFinding(answer, []).verdict, 'ok');
  assert.equal(embedderFinding(answer, [{ model: 'e5', passages: 10, dimensions: 384 }]).verdict, 'ok');
  const mismatch = embedderFinding(answer, [{ model: 'e5', passages: 10, dimensions: 512 }]);
  assert.equal(mismatch.verdict, 'fail');
  assert.match(mismatch.detail, /stored vectors of e5 have 512/);
  assert.equal(embedderFinding(answer, [{ model: 'use', passages: 4, dimensions: 512 }]).verdict, 'warn');
  assert.equal(embedderFinding({ ...answer, ok: false, error: 'ECONNREFUSED' }, []).verdict, 'fail');

  assert.equal(codecServerFinding('http://c', { outcome: 'round-trip', ms: 3 }).verdict, 'ok');
  assert.match(codecServerFinding('http://c', { outcome: 'refused', status: 401 }).fix ?? '', /CODEC_TOKEN/);
  assert.equal(codecServerFinding('http://c', { outcome: 'unreachable', message: 'ECONNREFUSED' }).verdict, 'warn');

  const nobody = inboxUsersFinding('password', { enabled: 0, operators: 0 });
  assert.deepEqual([nobody.verdict, nobody.fix], ['fail', 'email-rag inbox users add NAME --role operator']);
  assert.equal(inboxUsersFinding('password', { enabled: 2, operators: 0 }).verdict, 'warn');
  assert.equal(inboxUsersFinding('password', { enabled: 2, operators: 1 }).verdict, 'ok');
});
