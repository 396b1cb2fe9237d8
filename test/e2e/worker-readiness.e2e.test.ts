/**
 * The worker's health server (HEALTH_PORT) on a real worker, Temporal dev server, MariaDB and
 * Dovecot, the mailbox reached through a TCP relay the test cuts: `/readyz` says `starting` until
 * the mailbox's first successful poll, ready after it, `failing` when the mailbox cannot be polled,
 * and ready again with `paused` while its schedule is paused; `/livez` follows the SDK worker state.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config';
import { HEALTH_DEPENDENCIES, HEALTH_PATHS, HEALTH_STATES, type ReadinessReport } from '../../src/operations';
import { installSchedules, pollScheduleId } from '../../src/operations/schedules';
import { DEFAULT_MAILBOX_ID } from '../../src/mailboxes/mailbox-registry';
import type { RunningHealthServer } from '../../src/operations/index.adapters';
import { startWorkerHealth } from '../../workers/worker-health';
import { pollOnce, triggerPollRun } from '../support/poll-runs';
import { freePort } from '../support/services/ports';
import { startTcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait';
import { useWorkerStack, type WorkerStack } from '../support/worker-stack';

let s: WorkerStack;
let imapProxy: Awaited<ReturnType<typeof startTcpProxy>> | undefined;
let health: RunningHealthServer | undefined;
const MAILBOX = `${DEFAULT_MAILBOX_ID}/INBOX`;

useWorkerStack((running) => (s = running), {
  configure: async (stack) => {
    imapProxy = await startTcpProxy({ host: stack.dovecot.host, port: stack.dovecot.port });
    // No IDLE watcher: only the polls this test triggers move the mailbox's record.
    return loadConfig({
      ...stack.env,
      IMAP_HOST: '127.0.0.1',
      IMAP_PORT: String(imapProxy.port),
      IMAP_IDLE: 'false',
      HEALTH_PORT: String(await freePort()),
      HEALTH_HOST: '127.0.0.1',
    });
  },
  then: async (running) => {
    await installSchedules(running.client, running.config);
    health = await startWorkerHealth(running.config, running.worker);
  },
  cleanup: async () => {
    await health?.close();
    await imapProxy?.stop();
  },
});

async function readyz(): Promise<{ status: number; body: ReadinessReport }> {
  const res = await fetch(`${health!.url}${HEALTH_PATHS.ready}`);
  return { status: res.status, body: (await res.json()) as ReadinessReport };
}

const check = (body: ReadinessReport, dependency: string) => body.checks.find((c) => c.dependency === dependency);

test('HEALTH_PORT serves /livez from the SDK worker state', async () => {
  const res = await fetch(`${health!.url}${HEALTH_PATHS.live}`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { live: true, state: 'RUNNING' });
  assert.equal((await fetch(`${health!.url}/metrics`)).status, 404, 'metrics stay on METRICS_PORT');
});

test('before the first poll the mailbox is starting and the worker is not ready; everything else is', async () => {
  const { status, body } = await readyz();
  assert.equal(status, 503, JSON.stringify(body));
  for (const dependency of [HEALTH_DEPENDENCIES.worker, HEALTH_DEPENDENCIES.database, HEALTH_DEPENDENCIES.temporal])
    assert.equal(check(body, dependency)?.state, HEALTH_STATES.ok, dependency);
  const mailbox = check(body, HEALTH_DEPENDENCIES.mailbox);
  assert.equal(mailbox?.target, MAILBOX);
  assert.equal(mailbox?.state, HEALTH_STATES.starting);
  assert.match(mailbox?.reason ?? '', /not polled successfully since the worker started/);
});

test('after its first successful poll the worker is ready', async () => {
  await pollOnce(s.client);
  const { status, body } = await readyz();
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.ready, true);
  assert.deepEqual(check(body, HEALTH_DEPENDENCIES.mailbox), {
    dependency: HEALTH_DEPENDENCIES.mailbox,
    target: MAILBOX,
    state: HEALTH_STATES.ok,
  });
});

test('a mailbox that cannot be polled makes the worker not ready, with the poll error; a paused schedule expects nothing', async () => {
  imapProxy!.cut();
  try {
    await triggerPollRun(s.client);
    // One poll run's tries (PROFILES.poll: three, 5 s and 15 s apart) all fail.
    const failing = await waitFor(
      'the mailbox failing',
      async () => {
        const r = await readyz();
        return check(r.body, HEALTH_DEPENDENCIES.mailbox)?.state === HEALTH_STATES.failing ? r : undefined;
      },
      120_000,
      500,
    );
    assert.equal(failing.status, 503);
    assert.match(check(failing.body, HEALTH_DEPENDENCIES.mailbox)?.reason ?? '', /^3 failed poll attempt\(s\) in a row: /);

    const schedule = s.client.schedule.getHandle(pollScheduleId(DEFAULT_MAILBOX_ID));
    await schedule.pause('mail server maintenance');
    try {
      const paused = await readyz();
      assert.equal(paused.status, 200, JSON.stringify(paused.body));
      assert.deepEqual(check(paused.body, HEALTH_DEPENDENCIES.mailbox), {
        dependency: HEALTH_DEPENDENCIES.mailbox,
        target: MAILBOX,
        state: HEALTH_STATES.paused,
        reason: 'poll schedule paused: mail server maintenance',
      });
    } finally {
      await schedule.unpause();
    }
  } finally {
    imapProxy!.restore();
  }
  await pollOnce(s.client);
  assert.equal((await readyz()).status, 200, 'ready again after the next successful poll');
});

test('a HEALTH_PORT already taken stops the start with its name', async () => {
  const taken = Number(new URL(health!.url).port);
  await assert.rejects(
    startWorkerHealth({ ...s.config, health: { host: '127.0.0.1', port: taken } }, s.worker),
    new RegExp(`cannot listen on 127\\.0\\.0\\.1:${taken} for the health server: .*EADDRINUSE.*\\(set HEALTH_PORT\\)`),
  );
});

test('a stopped worker is neither live nor ready', async () => {
  await s.worker.shutdown();
  const live = await fetch(`${health!.url}${HEALTH_PATHS.live}`);
  assert.equal(live.status, 503);
  assert.deepEqual(await live.json(), { live: false, state: 'STOPPED' });
  const { status, body } = await readyz();
  assert.equal(status, 503);
  assert.equal(check(body, HEALTH_DEPENDENCIES.worker)?.state, HEALTH_STATES.failing);
});
