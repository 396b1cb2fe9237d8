import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config';
import {
  checkReadiness,
  HEALTH_DEPENDENCIES,
  HEALTH_STATES,
  judgePollAge,
  mailboxPollProbe,
  pollBoundSeconds,
  workerLiveness,
  WORKER_HEALTH_PORT,
  type PollAge,
  type WatchedMailbox,
} from '../../src/operations';
import { ConfigError } from '../../src/platform/errors';

const base = { IMAP_USER: 'support@example.test', IMAP_PASSWORD: 'secret' };
const box: WatchedMailbox = { id: 'support', enabled: true, imap: { folders: ['INBOX'], pollIntervalSeconds: 60 } };
const age = (over: Partial<PollAge>): PollAge => ({
  mailboxId: 'support',
  folder: 'INBOX',
  secondsSinceSuccess: null,
  lastError: null,
  failuresInARow: 0,
  ...over,
});

test('HEALTH_PORT: off when unset, a port and host when set, nonsense and a clash with METRICS_PORT refused', () => {
  assert.equal(loadConfig(base).health, undefined, 'no health server for workers started by hand or by tests');
  assert.deepEqual(loadConfig({ ...base, HEALTH_PORT: String(WORKER_HEALTH_PORT) }).health, { host: '0.0.0.0', port: 9465 });
  assert.deepEqual(loadConfig({ ...base, HEALTH_PORT: '9000', HEALTH_HOST: '127.0.0.1' }).health, { host: '127.0.0.1', port: 9000 });
  assert.throws(
    () => loadConfig({ ...base, HEALTH_PORT: '70000', HEALTH_HOST: 'x/y' }),
    (err: unknown) =>
      err instanceof ConfigError &&
      err.message.includes('HEALTH_PORT must be a whole number between 1 and 65535') &&
      err.message.includes('HEALTH_HOST must be an IP address or host name'),
  );
  assert.throws(() => loadConfig({ ...base, HEALTH_PORT: '9464', METRICS_PORT: '9464' }), /HEALTH_PORT and METRICS_PORT must differ/);
});

test('the bound of a poll is three intervals and a minute', () => {
  assert.equal(pollBoundSeconds(60), 240);
  assert.equal(pollBoundSeconds(3600), 10_860);
});

test('a folder polled since the worker started, within the bound, is ok; one failed attempt after that does not change it', () => {
  assert.equal(judgePollAge(box, 'INBOX', age({ secondsSinceSuccess: 30 }), 600).state, HEALTH_STATES.ok);
  assert.equal(
    judgePollAge(box, 'INBOX', age({ secondsSinceSuccess: 30, lastError: 'IMAP_TIMEOUT: slow', failuresInARow: 1 }), 600).state,
    HEALTH_STATES.ok,
  );
});

test('a folder is failing after a whole poll run of failed tries, or when it failed without a success since the start', () => {
  const many = judgePollAge(box, 'INBOX', age({ secondsSinceSuccess: 30, lastError: 'IMAP_AUTH: refused', failuresInARow: 3 }), 600);
  assert.deepEqual(many, {
    target: 'support/INBOX',
    state: HEALTH_STATES.failing,
    reason: '3 failed poll attempt(s) in a row: IMAP_AUTH: refused',
  });
  const early = judgePollAge(box, 'INBOX', age({ secondsSinceSuccess: 900, lastError: 'IMAP_AUTH: refused', failuresInARow: 1 }), 20);
  assert.equal(early.state, HEALTH_STATES.failing);
});

test('a folder not polled since the start is starting while the worker is younger than the bound, then stale', () => {
  // Polled before this worker started (900 s ago, the worker is 20 s old): the start waits for a poll of its own time.
  const starting = judgePollAge(box, 'INBOX', age({ secondsSinceSuccess: 900 }), 20);
  assert.equal(starting.state, HEALTH_STATES.starting);
  assert.match(starting.reason ?? '', /since the worker started 20 s ago/);
  assert.equal(judgePollAge(box, 'INBOX', undefined, 20).state, HEALTH_STATES.starting, 'never polled at all');
  const stale = judgePollAge(box, 'INBOX', age({ secondsSinceSuccess: 300 }), 3_600);
  assert.deepEqual(stale, {
    target: 'support/INBOX',
    state: HEALTH_STATES.stale,
    reason: 'last successful poll 300 s ago; expected within 240 s (3 poll intervals + 60 s)',
  });
  assert.match(judgePollAge(box, 'INBOX', undefined, 3_600).reason ?? '', /^never polled successfully/);
});

test('the mailbox probe: enabled folders only, a paused schedule is ready, a missing one is named, a failed lookup changes nothing', async () => {
  const mailboxes: WatchedMailbox[] = [
    { id: 'a', enabled: true, imap: { folders: ['INBOX', 'Support'], pollIntervalSeconds: 60 } },
    { id: 'b', enabled: true, imap: { folders: ['INBOX'], pollIntervalSeconds: 60 } },
    { id: 'c', enabled: true, imap: { folders: ['INBOX'], pollIntervalSeconds: 60 } },
    { id: 'd', enabled: true, imap: { folders: ['INBOX'], pollIntervalSeconds: 60 } },
    { id: 'off', enabled: false, imap: { folders: ['INBOX'], pollIntervalSeconds: 60 } },
  ];
  const asked: string[] = [];
  const probe = mailboxPollProbe({
    mailboxes,
    pollAges: async () => [{ ...age({ secondsSinceSuccess: 10 }), mailboxId: 'd' }],
    uptimeSeconds: () => 3_600,
    pollSchedule: async (id) => {
      asked.push(id);
      if (id === 'a') return { paused: true, note: 'backup' };
      if (id === 'b') return 'missing';
      throw new Error('Temporal unreachable');
    },
  });
  const checks = await probe.run(1_000);
  assert.deepEqual(
    (checks ?? []).map((c) => [c.target, c.state]),
    [
      ['a/INBOX', HEALTH_STATES.paused],
      ['a/Support', HEALTH_STATES.paused],
      ['b/INBOX', HEALTH_STATES.stale],
      ['c/INBOX', HEALTH_STATES.stale],
      ['d/INBOX', HEALTH_STATES.ok],
    ],
  );
  assert.match(checks?.[2]?.reason ?? '', /no poll schedule \(email-rag schedules install\)$/);
  assert.doesNotMatch(checks?.[3]?.reason ?? '', /schedule/);
  assert.deepEqual(asked.sort(), ['a', 'b', 'c'], 'one lookup per mailbox that is not ready, none for a ready one');
});

test('readiness: every probe at once; one that throws or hangs is failing with its place and reason, the others unaffected', async () => {
  const report = await checkReadiness(
    [
      { dependency: HEALTH_DEPENDENCIES.database, where: 'MariaDB at db:3306/x', run: () => new Promise(() => undefined) },
      {
        dependency: HEALTH_DEPENDENCIES.temporal,
        where: 'namespace "default" at t:7233',
        run: () => Promise.reject(new Error('14 UNAVAILABLE\nmore')),
      },
      { dependency: HEALTH_DEPENDENCIES.codec, run: async () => undefined },
    ],
    50,
  );
  assert.deepEqual(report, {
    ready: false,
    checks: [
      { dependency: 'database', state: 'failing', reason: 'MariaDB at db:3306/x: no answer within 50 ms' },
      { dependency: 'temporal', state: 'failing', reason: 'namespace "default" at t:7233: 14 UNAVAILABLE' },
      { dependency: 'codec', state: 'ok' },
    ],
  });
  assert.equal((await checkReadiness([{ dependency: HEALTH_DEPENDENCIES.codec, run: async () => undefined }])).ready, true);
});

test('worker liveness: live while running and while draining after a stop signal; not once failed, stopped or not yet running', () => {
  assert.deepEqual(workerLiveness(['RUNNING', 'RUNNING']), { live: true, state: 'RUNNING' });
  assert.deepEqual(workerLiveness(['RUNNING', 'DRAINING', 'STOPPING']), { live: true, state: HEALTH_STATES.stopping });
  assert.deepEqual(workerLiveness(['RUNNING', 'FAILED']), { live: false, state: 'RUNNING, FAILED' });
  assert.deepEqual(workerLiveness(['STOPPED']), { live: false, state: 'STOPPED' });
  assert.deepEqual(workerLiveness(['INITIALIZED']), { live: false, state: 'INITIALIZED' });
  assert.deepEqual(workerLiveness([]), { live: false, state: 'no worker' });
});
