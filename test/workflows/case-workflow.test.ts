/**
 * CaseWorkflow in Temporal's time-skipping test server: the real workflow code and the real
 * business-hours planning, with FAKE activities (in memory, named as such) standing in for
 * MariaDB, so its durable timers can be watched across a weekend and a holiday without waiting.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { DateTime } from 'luxon';
import { registerSearchAttributes } from '../../src/operations/search-attributes.temporal';
import { buildBusinessCalendar, type BusinessCalendar } from '../../src/business-time/business-hours';
import { DEFAULT_RESPONSE_TARGETS, planDeadline } from '../../src/business-time/case-deadline';
import {
  CaseWorkflow,
  caseChangedSignal,
  caseQuery,
  draftReadySignal,
  stopAutoSendSignal,
  type CaseActivities,
} from '../../src/cases/case.workflow';
import { createCaseTurnActivities } from '../../src/cases/case-turn.activities';
import { temporalTestServerPath } from '../support/services/tool-paths';
import { workflowBundle } from '../support/workflow-bundle';

let env: TestWorkflowEnvironment;
let bundle: { codePath: string };

before(async () => {
  bundle = await workflowBundle();
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: temporalTestServerPath() } },
  });
  await registerSearchAttributes(env.connection, env.namespace ?? 'default');
});
after(async () => {
  await env?.teardown();
});

const BERLIN = 'Europe/Berlin';

/** The next Friday 16:00 in Berlin after `nowMs`, and the Monday after it (a holiday here). */
function fridayAfter(nowMs: number): { friday: DateTime; monday: DateTime } {
  let d = DateTime.fromMillis(nowMs, { zone: BERLIN }).plus({ days: 1 }).set({ hour: 16, minute: 0, second: 0, millisecond: 0 });
  while (d.weekday !== 5) d = d.plus({ days: 1 });
  return { friday: d, monday: d.plus({ days: 3 }).startOf('day') };
}

/** FAKE case activities: one case's row in memory; the deadline planned with the product's own rules. */
function fakeCase(calendar: BusinessCalendar, waitingSince: Date) {
  const row = { status: 'open', reminded: false, breached: false, priority: 'normal' as 'normal' | 'high' };
  const calls: Array<{ name: string; atMs: number; input: unknown }> = [];
  const at = async (name: string, input: unknown) => {
    calls.push({ name, atMs: await env.currentTimeMs(), input });
    if (process.env.CASE_TEST_TRACE) console.log('fake activity', name, new Date(calls.at(-1)!.atMs).toISOString());
  };
  const verdicts: Array<{ send: boolean; graceMs: number }> = [];
  let planned: ReturnType<typeof planDeadline> | undefined;
  const activities: CaseActivities = {
    caseState: async () => ({ status: row.status, closeAt: null, owner: null, mailbox: 'default', priority: row.priority }),
    closeQuietCase: async () => ({ closed: false }),
    planCaseDeadline: async (i) => {
      await at('plan', i);
      if (row.status !== 'open')
        return { state: 'paused', dueAt: null, remindAt: null, reminded: row.reminded, breached: row.breached, priority: row.priority };
      // The deadline is planned once (as the real activity stores it); the reminder's raise does not move it.
      const plan = (planned ??= planDeadline({
        waitingSince,
        priority: 'normal',
        calendar,
        targets: { ...DEFAULT_RESPONSE_TARGETS },
        reminderBefore: { percent: 25 },
        now: new Date(await env.currentTimeMs()),
      }));
      return {
        state: 'running',
        dueAt: plan.dueAt.toISOString(),
        remindAt: plan.remindAt?.toISOString() ?? null,
        reminded: row.reminded,
        breached: row.breached,
        priority: row.priority,
      };
    },
    remindCase: async (i) => {
      await at('remind', i);
      row.reminded = true;
      row.priority = 'high';
      return { done: true };
    },
    escalateCase: async (i) => {
      await at('escalate', i);
      row.breached = true;
      return { done: true, notified: ['email'] };
    },
    routeCase: async (i) => (await at('route', i), { team: null, owner: null, rule: null }),
    summariseCase: async (i) => (await at('summarise', i), { written: false, kind: null }),
    autonomyVerdict: async (i) => (await at('verdict', i), { send: false, graceMs: 0, policy: null, reasons: [], ...verdicts.shift() }),
    autoSend: async (i) => (await at('autoSend', i), { sent: true, reason: 'sent' }),
  };
  return { row, calls, verdicts, activities };
}

async function withWorker<T>(activities: CaseActivities, fn: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `case-${randomUUID()}`;
  // The wake-up's local activity is the real one, made of the FAKE parts; every case here is long
  // enough for a summary, so each ready draft leads to summariseCase (an activity of its own).
  const turn = createCaseTurnActivities({ ...activities, summaryDue: async () => true });
  const common = { connection: env.nativeConnection, namespace: env.namespace ?? 'default', activities: { ...activities, ...turn } };
  const main = await Worker.create({ ...common, taskQueue, workflowBundle: bundle });
  // The case workflow's activities run on the bookkeeping cost class's queue.
  const pool = await Worker.create({ ...common, taskQueue: `${taskQueue}-bookkeeping` });
  const work = fn(taskQueue);
  const [result] = await Promise.all([main.runUntil(work), pool.runUntil(work)]);
  return result;
}

test('a Friday-evening mail: the reminder and the escalation fire in business hours, after the weekend and the Monday holiday', async () => {
  const { friday, monday } = fridayAfter(await env.currentTimeMs());
  const calendar = buildBusinessCalendar(
    {
      timeZone: BERLIN,
      weekly: { mon: '08:00-17:00', tue: '08:00-17:00', wed: '08:00-17:00', thu: '08:00-17:00', fri: '08:00-17:00' },
      holidays: [monday.toISODate()!],
    },
    (p) => assert.fail(p),
  )!;
  const fake = fakeCase(calendar, friday.toJSDate());
  await withWorker(fake.activities, async (taskQueue) => {
    const caseId = `case-${randomUUID()}`;
    const handle = await env.client.workflow.start(CaseWorkflow, { taskQueue, workflowId: caseId, args: [{ caseId }] });
    // Normal priority: 8 business hours. Friday 16–17 is one, Saturday, Sunday and the holiday
    // Monday are closed, Tuesday 08:00 + 7 h = 15:00; the reminder 25 % (2 h) before, at 13:00.
    const tuesday = friday.plus({ days: 4 });
    await env.sleep(tuesday.set({ hour: 16 }).toMillis() - (await env.currentTimeMs()));
    const remind = fake.calls.find((c) => c.name === 'remind');
    const escalate = fake.calls.find((c) => c.name === 'escalate');
    assert.ok(remind && escalate, `reminded and escalated: ${fake.calls.map((c) => c.name).join(', ')}`);
    assert.equal(DateTime.fromMillis(remind.atMs, { zone: BERLIN }).toFormat('ccc HH:mm'), 'Tue 13:00');
    assert.equal(DateTime.fromMillis(escalate.atMs, { zone: BERLIN }).toFormat('ccc HH:mm'), 'Tue 15:00');
    assert.equal(fake.calls.filter((c) => c.name === 'remind').length, 1, 'reminded once');
    assert.equal(fake.calls.filter((c) => c.name === 'escalate').length, 1, 'escalated once');
    const view = await handle.query(caseQuery);
    assert.deepEqual(view.acted.sort(), [`escalate:${view.dueAt}`, `remind:${view.dueAt}`].sort());
    // Answered and closed: the workflow ends.
    fake.row.status = 'closed';
    await handle.signal(caseChangedSignal, {});
    assert.deepEqual(await handle.result(), { caseId, status: 'closed' });
  });
});

test('a qualifying draft is sent after its grace period unless a person stops it; a newer draft replaces the older one', async () => {
  const fake = fakeCase(
    buildBusinessCalendar(
      {
        timeZone: 'UTC',
        weekly: {
          mon: '00:00-24:00',
          tue: '00:00-24:00',
          wed: '00:00-24:00',
          thu: '00:00-24:00',
          fri: '00:00-24:00',
          sat: '00:00-24:00',
          sun: '00:00-24:00',
        },
      },
      assert.fail,
    )!,
    new Date((await env.currentTimeMs()) + 30 * 86_400_000),
  );
  fake.row.status = 'waiting_for_customer';
  await withWorker(fake.activities, async (taskQueue) => {
    const caseId = `case-${randomUUID()}`;
    const handle = await env.client.workflow.start(CaseWorkflow, { taskQueue, workflowId: caseId, args: [{ caseId }] });
    const startMs = await env.currentTimeMs();
    fake.verdicts.push({ send: true, graceMs: 600_000 }, { send: true, graceMs: 600_000 }, { send: true, graceMs: 600_000 });
    await handle.signal(draftReadySignal, { emailId: 'e1', draftId: 'e1:draft:1' });
    await handle.signal(draftReadySignal, { emailId: 'e2', draftId: 'e2:draft:1' });
    // A person stops e2; e1 gets a newer draft before its grace ended: only e1's newer draft goes.
    await env.sleep(60_000);
    await handle.signal(stopAutoSendSignal, { emailId: 'e2', by: 'anna' });
    await handle.signal(draftReadySignal, { emailId: 'e1', draftId: 'e1:draft:2' });
    await env.sleep(15 * 60_000);
    const sends = fake.calls.filter((c) => c.name === 'autoSend');
    assert.deepEqual(
      sends.map((s) => s.input),
      [{ emailId: 'e1', draftId: 'e1:draft:2' }],
    );
    assert.ok(sends[0]!.atMs - startMs >= 660_000, 'not before its own grace period (from the newer draft) ended');
    assert.ok(
      fake.calls.some((c) => c.name === 'route') && fake.calls.some((c) => c.name === 'summarise'),
      'each ready draft routes and summarises its case',
    );
    fake.row.status = 'closed';
    await handle.signal(caseChangedSignal, {});
    await handle.result();
  });
});
