/**
 * One scheduled poll run keeps taking batches while mail waits, bounded by BACKLOG_LIMIT: a pass
 * cut by the backlog waits and passes again once emails left it. Real Temporal dev server, Dovecot
 * and MariaDB; the EmailWorkflows the poll starts go to a task queue no worker serves, so they stay
 * parked (never store their message, so they stay in the backlog) and only the poll itself runs.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { PollResult } from '../../src/email/email-activities';
import type { WorkflowHandle } from '@temporalio/client';
import { createTemporalStarter } from '../../src/email/workflow-starter.temporal';
import { installSchedules, pollScheduleId, triggerSchedule } from '../../src/operations/schedules';
import { DEFAULT_MAILBOX_ID } from '../../src/mailboxes/mailbox-registry';
import { imapEmailId } from '../../src/email/email-input';
import { loadConfig, type Config } from '../../src/config';
import { buildDependencies } from '../../workers/wiring';
import { MAILBOX_USER, sampleEmail, startStack, type TestStack } from '../support/stack';
import { workflowBundle } from '../support/workflow-bundle';

let stack: TestStack;
let connection: Connection;
let client: Client;

before(async () => {
  stack = await startStack({ env: { IMAP_POLL_BATCH_SIZE: '100' } });
  connection = await Connection.connect({ address: stack.config.temporal.address });
  client = new Client({ connection });
});
after(async () => {
  await connection?.close();
  await stack?.stop();
});

type HistoryEvents = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>;

/**
 * Runs the poll schedule once with a worker built from `config` and returns that run's result;
 * `meanwhile` runs while the run is open (before its result is awaited).
 */
async function scheduledPoll(
  config: Config,
  parkedQueue: string,
  meanwhile: (handle: WorkflowHandle) => Promise<void> = async () => undefined,
  afterwards: (handle: WorkflowHandle) => Promise<void> = async () => undefined,
): Promise<{ result: PollResult; passes: number; events: HistoryEvents }> {
  const deps = buildDependencies(config, client);
  const native = await NativeConnection.connect({ address: config.temporal.address });
  const activities = createActivities({ ...deps.activities, starter: createTemporalStarter(client, parkedQueue) });
  const workflows = await Worker.create({
    connection: native,
    taskQueue: config.temporal.taskQueue,
    workflowBundle: await workflowBundle(),
  });
  const mailIo = await Worker.create({ connection: native, taskQueue: `${config.temporal.taskQueue}-mail-io`, activities });
  const running = Promise.all([workflows.run(), mailIo.run()]);
  try {
    await installSchedules(client, config);
    const schedule = client.schedule.getHandle(pollScheduleId(DEFAULT_MAILBOX_ID));
    const before = (await schedule.describe()).info.recentActions.length;
    await triggerSchedule(client, pollScheduleId(DEFAULT_MAILBOX_ID));
    let workflowId: string | undefined;
    for (let i = 0; i < 200 && !workflowId; i++) {
      const actions = (await schedule.describe()).info.recentActions;
      if (actions.length > before) workflowId = actions.at(-1)?.action.workflow.workflowId;
      else await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(workflowId, 'the schedule started a poll run');
    const handle = client.workflow.getHandle(workflowId);
    await meanwhile(handle);
    const result = (await handle.result()) as PollResult;
    const events = (await handle.fetchHistory()).events ?? [];
    const passes = events.filter((e) => e.activityTaskScheduledEventAttributes).length;
    await afterwards(handle);
    return { result, passes, events };
  } finally {
    workflows.shutdown();
    mailIo.shutdown();
    await running.catch(() => undefined);
    await native.close();
    await deps.close();
  }
}

async function deliver(n: number, tag: string): Promise<void> {
  for (let i = 0; i < n; i++) {
    await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ subject: `${tag} ${i}`, messageId: `<${tag}-${i}@customer.example>` }));
  }
}

async function parked(queue: string): Promise<number> {
  return (await client.workflow.count(`WorkflowType = 'EmailWorkflow' AND TaskQueue = '${queue}'`)).count;
}

test('one scheduled poll run starts all 250 waiting messages with a batch size of 100', async () => {
  const parkedQueue = `${stack.config.temporal.taskQueue}-parked-a`;
  // A backlog with room for all 250: what is under test here is the batches, not the backlog (next test).
  const config = loadConfig({ ...stack.env, BACKLOG_LIMIT: '500' });
  // The first run connects the mailbox (existing mail is left alone), then mail arrives.
  const connect = await scheduledPoll(config, parkedQueue);
  assert.deepEqual(connect.result.started, []);
  await deliver(250, 'drain');

  const { result, passes } = await scheduledPoll(config, parkedQueue);
  assert.equal(result.started.length, 250, JSON.stringify({ ...result, started: result.started.length }));
  assert.equal(new Set(result.started).size, 250);
  assert.equal(passes, 3, 'three passes of at most 100');
  assert.equal(result.more, false);
  const watermark = (await stack.db.pool.query('SELECT last_uid FROM mailbox_watermarks')) as Array<{ last_uid: number }>;
  assert.equal(Number(watermark[0]?.last_uid), result.watermark);
  for (let i = 0; i < 50 && (await parked(parkedQueue)) < 250; i++) await new Promise((r) => setTimeout(r, 200));
  assert.equal(await parked(parkedQueue), 250);

  // Nothing new: the next run takes one pass and starts nothing.
  const idle = await scheduledPoll(config, parkedQueue);
  assert.deepEqual(idle.result.started, []);
  assert.equal(idle.passes, 1);
});

test('a run cut by BACKLOG_LIMIT waits while the backlog is full and takes the rest once emails left it', async () => {
  const parkedQueue = `${stack.config.temporal.taskQueue}-parked-b`;
  await deliver(250, 'limited');
  // The parked workflows never fetch, so MariaDB knows of no unfinished email: only the run's own
  // count (started, message not stored yet) limits it.
  const config = loadConfig({ ...stack.env, BACKLOG_LIMIT: '150' });
  let waitedWhileFull = 0;
  const { result, passes, events } = await scheduledPoll(
    config,
    parkedQueue,
    async (handle) => {
      // Two passes (100, then 50 of 100) fill the backlog; the run stays open and waits (timers).
      let history: HistoryEvents = [];
      for (let i = 0; i < 300; i++) {
        history = (await handle.fetchHistory()).events ?? [];
        waitedWhileFull = history.filter((e) => e.timerFiredEventAttributes).length;
        if (waitedWhileFull >= 2) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.ok(waitedWhileFull >= 2, 'the run waited twice for room');
      assert.equal((await handle.describe()).status.name, 'RUNNING', 'the run waits instead of ending');
      assert.equal(await parked(parkedQueue), 150, 'nothing taken while the backlog is full');
      // A poll requested now (an operator's `email-rag poll`) runs after this run, never beside it.
      await triggerSchedule(client, pollScheduleId(DEFAULT_MAILBOX_ID));
      await new Promise((r) => setTimeout(r, 1_500));
      const polls = await client.workflow.count(`WorkflowType = 'ImapPollWorkflow' AND ExecutionStatus = 'Running'`);
      assert.equal(polls.count, 1, 'one poll run at a time');
      const running = (await client.schedule.getHandle(pollScheduleId(DEFAULT_MAILBOX_ID)).describe()).info.runningActions;
      assert.deepEqual(
        running.map((a) => a.workflow.workflowId),
        [handle.workflowId],
        'the schedule knows its run in progress',
      );
      const mark = (await stack.db.pool.query('SELECT uid_validity, last_uid FROM mailbox_watermarks')) as Array<{
        uid_validity: number;
        last_uid: number;
      }>;
      const { uid_validity: uidValidity, last_uid: lastUid } = mark[0]!;
      // 100 of the 150 stored their message and wait for approval: they left the backlog.
      for (let uid = Number(lastUid) - 99; uid <= Number(lastUid); uid++) {
        await stack.db.pool.query(
          `INSERT INTO emails (id, source, mailbox_id, mailbox, uid_validity, uid, status) VALUES (?, 'imap', ?, 'INBOX', ?, ?, 'awaiting_approval')`,
          [imapEmailId(MAILBOX_USER, 'INBOX', Number(uidValidity), uid), DEFAULT_MAILBOX_ID, uidValidity, uid],
        );
      }
    },
    async (handle) => {
      // The requested run followed once this one ended, and found nothing left to take.
      const schedule = client.schedule.getHandle(pollScheduleId(DEFAULT_MAILBOX_ID));
      let next: string | undefined;
      for (let i = 0; i < 100 && !next; i++) {
        next = (await schedule.describe()).info.recentActions.map((a) => a.action.workflow.workflowId).find((id) => id > handle.workflowId);
        if (!next) await new Promise((r) => setTimeout(r, 200));
      }
      assert.ok(next, 'the buffered poll ran after the first');
      const followed = client.workflow.getHandle(next);
      assert.deepEqual(((await followed.result()) as PollResult).started, []);
      const [first, second] = await Promise.all([handle.describe(), followed.describe()]);
      assert.ok(second.startTime >= first.closeTime!, 'it started after the first run closed');
    },
  );
  assert.equal(result.started.length, 250, JSON.stringify({ ...result, started: result.started.length }));
  assert.equal(new Set(result.started).size, 250);
  assert.ok(!result.cutByBacklog, 'the run ended drained');
  // 100, 50 (cut), at least two passes that found no room, then the last 100.
  assert.ok(passes >= 5, `passes: ${passes}`);
  const timers = events.flatMap((e) =>
    e.timerStartedEventAttributes ? [Number(String(e.timerStartedEventAttributes.startToFireTimeout?.seconds ?? 0))] : [],
  );
  assert.deepEqual(timers.slice(0, 2), [2, 4], 'the waits start at 2 s and grow while nothing leaves the backlog');
  assert.equal(timers.length, passes - 2, 'one wait before every pass after the cut one');
  const marker = events.find((e) => e.markerRecordedEventAttributes);
  assert.equal(marker, undefined, 'one workflow generation: no patch marker');
  const notes = (await stack.db.pool.query(`SELECT details FROM audit_log WHERE event_type = 'backpressure' ORDER BY id`)) as Array<{
    details: string | Record<string, unknown>;
  }>;
  const first = typeof notes[0]!.details === 'string' ? JSON.parse(notes[0]!.details) : notes[0]!.details;
  assert.deepEqual({ backlog: first.backlog, taken: first.taken }, { backlog: 100, taken: 50 });
  for (let i = 0; i < 50 && (await parked(parkedQueue)) < 250; i++) await new Promise((r) => setTimeout(r, 200));
  assert.equal(await parked(parkedQueue), 250);
});
