/**
 * ImapPollWorkflow when BACKLOG_LIMIT cuts a pass, in Temporal's time-skipping test server: the
 * real workflow code with a FAKE pollMailbox (scripted results), so the waits between passes (2 s
 * doubling to 15 s), the end after one poll interval of waiting and the continue-as-new after
 * MAX_POLL_PASSES are observed on the server's clock without waiting for them.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { PollInput, PollResult } from '../../src/email/email-activities';
import { temporalTestServerPath } from '../support/services/tool-paths';
import { MAX_POLL_PASSES, type PollRunResult } from '../../src/email/intake/imap-poll.workflow';
import { workflowBundle } from '../support/workflow-bundle';

let env: TestWorkflowEnvironment;
let bundle: { codePath: string };

before(async () => {
  bundle = await workflowBundle();
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: temporalTestServerPath() } },
  });
});
after(async () => {
  await env?.teardown();
});

/** One scripted pass: how many it started, and whether mail waits (more) or was cut by the backlog. */
type Pass = { started: number; more?: boolean; cut?: boolean };

/** Runs one poll workflow over scripted passes; the calls with the server's (skipped) clock. */
async function pollRun(passes: Pass[], opts: { intervalSeconds?: number; executionTimeoutMs?: number } = {}) {
  const calls: Array<{ atMs: number; input: PollInput }> = [];
  let uid = 0;
  const activities = {
    async pollMailbox(input: PollInput): Promise<PollResult> {
      calls.push({ atMs: await env.currentTimeMs(), input });
      const p = passes[calls.length - 1];
      if (!p) throw new Error(`pass ${calls.length} was not scripted`);
      const from = uid;
      const started = Array.from({ length: p.started }, () => `email-${++uid}`);
      return {
        mailboxId: 'default',
        mailbox: 'INBOX',
        uidValidity: 7,
        started,
        existing: [],
        backlog: 0,
        watermark: uid,
        from,
        more: p.more ?? false,
        ...(p.cut ? { cutByBacklog: true, pollIntervalSeconds: opts.intervalSeconds ?? 60 } : {}),
      };
    },
  };
  const taskQueue = `poll-${randomUUID()}`;
  const main = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle });
  const mailIo = await Worker.create({ connection: env.nativeConnection, taskQueue: `${taskQueue}-mail-io`, activities });
  const work = (async () => {
    const handle = await env.client.workflow.start('ImapPollWorkflow', {
      taskQueue,
      workflowId: `poll-default-${randomUUID()}`,
      args: [{ mailboxId: 'default' }],
      ...(opts.executionTimeoutMs ? { workflowExecutionTimeout: opts.executionTimeoutMs } : {}),
    });
    const result = (await handle.result()) as PollRunResult;
    const firstRun = (await env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).fetchHistory()).events ?? [];
    const last = firstRun.at(-1);
    const firstRunEnded = last?.workflowExecutionContinuedAsNewEventAttributes
      ? 'continued as new'
      : last?.workflowExecutionCompletedEventAttributes
        ? 'completed'
        : 'other';
    return { result, firstRun, firstRunEnded };
  })();
  const [out] = await Promise.all([main.runUntil(work), mailIo.runUntil(work)]);
  const gaps = calls.slice(1).map((c, i) => Math.round((c.atMs - calls[i]!.atMs) / 1000) * 1000);
  return { ...out, calls, gaps };
}

const markers = (events: Array<{ markerRecordedEventAttributes?: unknown }>) =>
  events.filter((e) => e.markerRecordedEventAttributes).length;

test('a pass cut by the backlog waits 2 s, 4 s, 8 s ... and takes the rest once emails left the backlog', async () => {
  const { result, calls, gaps, firstRun } = await pollRun([
    { started: 3, cut: true }, // the backlog had room for three
    { started: 0, cut: true }, // nothing left it yet
    { started: 0, cut: true },
    { started: 2, cut: true }, // two left: two more taken, the wait starts over at 2 s
    { started: 4 }, // room for the rest: drained
  ]);
  assert.deepEqual(gaps, [2_000, 4_000, 8_000, 2_000]);
  assert.equal(result.started.length, 9);
  assert.ok(!result.cutByBacklog, 'the run ended drained');
  // The passes after the first count the run's own starts towards the backlog, as the `more` passes do.
  assert.deepEqual(
    calls.map((c) => c.input.run?.started),
    [undefined, 3, 3, 3, 5],
  );
  assert.equal(markers(firstRun), 0, 'one workflow generation: no patch marker');
  assert.equal(firstRun.filter((e) => e.timerStartedEventAttributes).length, 4);
});

test('a run that is never cut records no marker and no timer', async () => {
  const { result, gaps, firstRun } = await pollRun([{ started: 100, more: true }, { started: 20 }]);
  assert.equal(result.started.length, 120);
  assert.deepEqual(gaps, [0]);
  assert.equal(markers(firstRun), 0);
  assert.equal(firstRun.filter((e) => e.timerStartedEventAttributes).length, 0);
});

test('after about one poll interval of waiting without taking anything the run ends; the next run takes over', async () => {
  const stuck = Array.from({ length: 20 }, (): Pass => ({ started: 0, cut: true }));
  const { result, gaps, firstRunEnded } = await pollRun([{ started: 5, cut: true }, ...stuck], { intervalSeconds: 60 });
  // 2 + 4 + 8 + 15 + 15 + 15 = 59 s; one more wait would pass 60 s.
  assert.deepEqual(gaps, [2_000, 4_000, 8_000, 15_000, 15_000, 15_000]);
  assert.equal(result.started.length, 5);
  assert.equal(result.cutByBacklog, true, 'the result says that mail still waits for the backlog');
  assert.equal(firstRunEnded, 'completed');
});

test('the run never waits into its timeout (the schedule gives each run 10 minutes)', async () => {
  const stuck = Array.from({ length: 20 }, (): Pass => ({ started: 0, cut: true }));
  // An hour's interval, but 90 s to live: each wait must leave 60 s for a last pass.
  const { gaps, firstRunEnded } = await pollRun([{ started: 5, cut: true }, ...stuck], {
    intervalSeconds: 3600,
    executionTimeoutMs: 90_000,
  });
  assert.deepEqual(gaps, [2_000, 4_000, 8_000, 15_000]);
  assert.equal(firstRunEnded, 'completed');
});

test(`after ${MAX_POLL_PASSES} passes with mail still waiting the run continues as new and drains the rest`, async () => {
  const passes: Pass[] = [
    ...Array.from({ length: MAX_POLL_PASSES }, (): Pass => ({ started: 10, more: true })),
    { started: 10, cut: true },
    { started: 7 },
  ];
  const { result, gaps, firstRunEnded, calls } = await pollRun(passes);
  assert.equal(calls.length, MAX_POLL_PASSES + 2);
  assert.equal(gaps.at(-1), 2_000, 'the continued run waited for the backlog');
  assert.equal(firstRunEnded, 'continued as new');
  assert.equal(result.started.length, 17, 'the last run reports what it started');
});
