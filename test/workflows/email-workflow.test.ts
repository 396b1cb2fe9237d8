/**
 * EmailWorkflow in Temporal's time-skipping test server: the real workflow code, the real queue
 * interceptor writing to a real MariaDB, and FAKE activities (in-memory stand-ins for IMAP, LLM
 * and SMTP) so that failures can be scripted and 30/120/600 s delays observed without waiting.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Context } from '@temporalio/activity';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Activities } from '../../activities';
import type { DraftView } from '../../src/email/email-activities';
import { createIngestActivities, type IngestSteps } from '../../src/email/intake/ingest.activities';
import { withRecordedStatus } from '../../src/email/status.activities';
import { createMariaDbAuditLog } from '../../src/platform/audit-log.mariadb';
import { createMariaDbJobLedger } from '../../src/platform/job-ledger.mariadb';
import { createTemporalDecisions } from '../../src/email/decisions/decisions.temporal';
import { registerSearchAttributes } from '../../src/operations/search-attributes.temporal';
import { PermanentError, TransientError } from '../../src/platform/errors';
import { temporalTestServerPath } from '../support/services/tool-paths';
import { createQueueInterceptor } from '../../workers/queue-interceptor';
import { COST_CLASSES } from '../../src/platform/activity-profiles.workflow';
import {
  EmailWorkflow,
  approveSignal,
  approveUpdate,
  draftQuery,
  markSentUpdate,
  redraftUpdate,
  rejectSignal,
  rejectUpdate,
  resendUpdate,
  stateQuery,
  threadUpdatedSignal,
} from '../../src/email/email.workflow';
import { createTestDatabase } from '../support/database';
import { workflowBundle } from '../support/workflow-bundle';

let env: TestWorkflowEnvironment;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let bundle: { codePath: string };

before(async () => {
  db = await createTestDatabase('wf');
  bundle = await workflowBundle();
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: temporalTestServerPath() } },
  });
  // As `email-rag temporal setup` does on a cluster: the workflow upserts these at every step.
  await registerSearchAttributes(env.connection, env.namespace ?? 'default');
});
after(async () => {
  await env?.teardown();
  await db?.drop();
});

type Script = Partial<Record<keyof Activities, Array<Error | null>>>;

/** Fake activities: each call takes the next scripted error (null = succeed) and records its schedule time. */
function fakeActivities(
  script: Script,
  ledger: { send: { draftId: string; status: string; messageId: string } | null; maxDraftVersion: number } = {
    send: null,
    maxDraftVersion: 0,
  },
  hold: { draft?: Promise<void>; learn?: Promise<void>; send?: Promise<void> } = {},
) {
  const statuses: string[] = [];
  const refusals: string[] = [];
  const calls: Array<{ name: string; attempt: number; startedMs: number; input: unknown }> = [];
  const outcomes: Array<{ status: string; eventType: string }> = [];
  const decisions: unknown[] = [];
  const step = async (name: keyof Activities, input: unknown) => {
    const info = Context.current().info;
    // The test server's (skipped) clock: when this attempt really ran.
    calls.push({ name, attempt: info.attempt, startedMs: await env.currentTimeMs(), input });
    const err = script[name]?.shift();
    if (err) throw err;
  };
  const draft = (draftId: string, needsHuman = false): DraftView => ({
    draftId,
    version: 1,
    subject: 'Re: Rechnung',
    body: needsHuman ? '' : 'Guten Tag, wir kümmern uns.',
    to: { name: 'Erika', address: 'erika@customer.example' },
    language: 'de',
    confidence: 0.8,
    drafter: 'fake',
    model: 'fake',
    flags: [],
    needsHuman,
  });
  const activities = {
    async fetchEmail(i: { emailId: string }) {
      await step('fetchEmail', i);
      return { size: 100 };
    },
    async parseEmail(i: { emailId: string }) {
      await step('parseEmail', i);
      return { priority: 'normal', hasReplyAddress: true, attachments: 0 };
    },
    async indexEmail(i: { emailId: string }) {
      await step('indexEmail', i);
      return { index: 'fake' };
    },
    async draftReply(i: { emailId: string; version: number }) {
      await step('draftReply', i);
      await hold.draft;
      return draft(`${i.emailId}:draft:${i.version}`);
    },
    async saveHumanDraft(i: { emailId: string; version: number; body: string }) {
      await step('saveHumanDraft', i);
      return { ...draft(`${i.emailId}:draft:${i.version}`), body: i.body, drafter: 'human' };
    },
    async recordDecision(i: { decision: unknown }) {
      await step('recordDecision', i);
      decisions.push(i.decision);
    },
    async learnMarkedSpam(i: { emailId: string; by: string }) {
      await step('learnMarkedSpam', i);
      await hold.learn;
    },
    async sendReply(i: { emailId: string; draftId: string }) {
      await step('sendReply', i);
      await hold.send;
      return { messageId: `<reply-${i.draftId}@example.test>`, outcome: 'sent' };
    },
    // The workflow's own bookkeeping (local activities): the status it decided, and what MariaDB knows.
    async recordStatus(o: { status: string; event?: { eventType: string }; via?: { status: string } | Array<{ status: string }> }) {
      // A scripted failure hits the writes that regular activities make for the workflow (v5, v6), never its own local ones.
      if (!Context.current().info.isLocal) {
        const err = script.recordStatus?.shift();
        if (err) throw err;
      }
      // Statuses passed on the way are recorded first, in order (as the real recordStatus does).
      for (const v of o.via === undefined ? [] : Array.isArray(o.via) ? o.via : [o.via]) statuses.push(v.status);
      statuses.push(o.status);
      if (o.event) outcomes.push({ status: o.status, eventType: o.event.eventType });
      return { stored: o.status, send: ledger.send, maxDraftVersion: ledger.maxDraftVersion };
    },
    async recordRefusal(o: { decision: string; by: string; reason: string }) {
      refusals.push(`${o.decision} by ${o.by}: ${o.reason}`);
    },
    async confirmSentByOperator(i: { draftId: string; by: string }) {
      await step('confirmSentByOperator', i);
      return { messageId: `<reply-${i.draftId}@example.test>` };
    },
  };
  // The real combined activity over the fake steps: the interceptor tracks each step's row and retries.
  const ingest = createIngestActivities(activities as unknown as IngestSteps);
  // As in production: intake, draft, decision and send record the status they reach through recordStatus (status-with-step-v5, send-records-sent-v6).
  const recording = withRecordedStatus(activities.recordStatus as never, {
    ingestEmail: ingest.ingestEmail,
    draftReply: activities.draftReply,
    recordDecision: activities.recordDecision as never,
    sendReply: activities.sendReply as never,
  });
  const all = Object.assign(activities, ingest, recording);
  return { activities: all, calls, outcomes, decisions, statuses, refusals };
}

async function withWorker<T>(fake: ReturnType<typeof fakeActivities>, fn: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `wf-${randomUUID()}`;
  const common = {
    connection: env.nativeConnection,
    activities: fake.activities,
    interceptors: { activity: [createQueueInterceptor(createMariaDbJobLedger(db.pool), createMariaDbAuditLog(db.pool))] },
  };
  // The main queue runs the workflow; each cost class has its own activity queue, as in production.
  const main = await Worker.create({ ...common, taskQueue, workflowBundle: bundle });
  const pools = await Promise.all(COST_CLASSES.map((c) => Worker.create({ ...common, taskQueue: `${taskQueue}-${c}` })));
  const work = fn(taskQueue);
  const [result] = await Promise.all([main.runUntil(work), ...pools.map((p) => p.runUntil(work))]);
  return result;
}

function start(taskQueue: string, emailId = `email-${randomUUID()}`) {
  return env.client.workflow.start(EmailWorkflow, { taskQueue, workflowId: emailId, args: [{ emailId, source: { kind: 'stored' } }] });
}

/** An Update the workflow refused: its answer carries the reason. */
async function refusedWith(update: Promise<unknown>, why: RegExp): Promise<void> {
  await assert.rejects(update, (err: Error & { cause?: Error }) => {
    assert.match(err.cause?.message ?? err.message, why);
    return true;
  });
}

/** The draft id a decision must name now (what a reviewer reads before deciding). */
async function currentDraftId(handle: Awaited<ReturnType<typeof start>>): Promise<string> {
  const w = (await handle.query(stateQuery)).waitingFor;
  assert.ok(w && 'draftId' in w, 'the workflow waits for a decision on a draft');
  return w.draftId;
}

async function jobRows(workflowId: string) {
  return (await db.pool.query('SELECT step, status, attempt, retry_count, error_class FROM queue_jobs WHERE workflow_id = ? ORDER BY id', [
    workflowId,
  ])) as Array<{ step: string; status: string; attempt: number; retry_count: number; error_class: string | null }>;
}

/** Queries do not let the test server skip time; env.sleep does, so retries and timers come due. */
async function waitForStatus(handle: Awaited<ReturnType<typeof start>>, status: string) {
  for (let i = 0; i < 400; i++) {
    if ((await handle.query(stateQuery)).status === status) return;
    await env.sleep('5 seconds');
  }
  assert.fail(`workflow never reached ${status}`);
}

test('a transient failure is retried after 30 s, 120 s and 600 s (±10 % jitter); the queue row records it', async () => {
  const fake = fakeActivities({
    parseEmail: [new TransientError('db hiccup'), new TransientError('again'), new TransientError('and again')],
  });
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    await waitForStatus(handle, 'awaiting_approval');
    const attempts = fake.calls.filter((c) => c.name === 'parseEmail');
    assert.deepEqual(
      attempts.map((a) => a.attempt),
      [1, 2, 3, 4],
    );
    const gaps = attempts.slice(1).map((a, i) => (a.startedMs - attempts[i]!.startedMs) / 1000);
    console.log('observed gaps between parse attempts (s):', gaps);
    for (const [i, expected] of [30, 120, 600].entries()) {
      assert.ok(gaps[i]! >= expected * 0.9 && gaps[i]! <= expected * 1.1 + 2, `gap ${i + 1} was ${gaps[i]} s, expected ~${expected} s`);
    }
    const parse = (await jobRows(handle.workflowId)).find((r) => r.step === 'parse');
    assert.deepEqual(parse, { step: 'parse', status: 'done', attempt: 4, retry_count: 3, error_class: 'transient' });
    const retries = (await db.pool.query(
      `SELECT COUNT(*) AS n FROM audit_log WHERE correlation_id = ? AND event_type = 'retry_scheduled'`,
      [handle.workflowId],
    )) as Array<{ n: number }>;
    assert.equal(Number(retries[0]?.n), 3);
    await handle.signal(rejectSignal, { draftId: await currentDraftId(handle), by: 'test', reason: 'done here' });
    assert.equal((await handle.result()).status, 'rejected');
  });
});

test('after the fourth failed attempt the job is dead and the email failed', async () => {
  const fake = fakeActivities({ parseEmail: Array.from({ length: 4 }, () => new TransientError('still down')) });
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    assert.equal((await handle.result()).status, 'failed');
    const parse = (await jobRows(handle.workflowId)).find((r) => r.step === 'parse');
    assert.equal(parse?.status, 'dead');
    assert.equal(parse?.attempt, 4);
    assert.deepEqual(fake.outcomes, [{ status: 'failed', eventType: 'parse_failed' }]);
  });
});

test('a permanent error is dead at once, without retries', async () => {
  const fake = fakeActivities({ parseEmail: [new PermanentError('corrupt MIME', 'MALFORMED_MESSAGE')] });
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    assert.equal((await handle.result()).status, 'failed');
    assert.equal(fake.calls.filter((c) => c.name === 'parseEmail').length, 1);
    const parse = (await jobRows(handle.workflowId)).find((r) => r.step === 'parse');
    assert.deepEqual(parse, { step: 'parse', status: 'dead', attempt: 1, retry_count: 0, error_class: 'permanent' });
  });
});

test('an index outage degrades to partially_indexed and the pipeline goes on', async () => {
  const fake = fakeActivities({ indexEmail: Array.from({ length: 3 }, () => new TransientError('qdrant down')) });
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    await waitForStatus(handle, 'awaiting_approval');
    assert.deepEqual(fake.outcomes, [{ status: 'partially_indexed', eventType: 'index_degraded' }]);
    assert.equal(fake.calls.filter((c) => c.name === 'indexEmail').length, 3);
    await handle.signal(approveSignal, { draftId: await currentDraftId(handle), by: 'ops' });
    assert.equal((await handle.result()).status, 'sent');
  });
});

test('a decision on a draft the workflow has not taken in yet waits for it; one on another draft is still refused', async () => {
  let release = (): void => undefined;
  const draftHeld = new Promise<void>((resolve) => (release = resolve));
  const fake = fakeActivities({}, undefined, { draft: draftHeld });
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    // The reviewer's view: the draft step is writing the draft the database will show as version 1.
    const draftId = `${handle.workflowId}:draft:1`;
    for (let i = 0; i < 200 && !fake.calls.some((c) => c.name === 'draftReply'); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(
      fake.calls.some((c) => c.name === 'draftReply'),
      'the draft step runs',
    );

    // Without waiting, the workflow's validator refuses: it has no draft yet.
    const impatient = await createTemporalDecisions(env.client, { catchUpMs: 0 }).decide(handle.workflowId, 'approve', {
      draftId,
      by: 'olga',
    });
    assert.equal(impatient.ok, false);
    assert.match(impatient.ok ? '' : impatient.message, /waits for no decision/);

    const decisions = createTemporalDecisions(env.client, { catchUpMs: 60_000 });
    const approved = decisions.decide(handle.workflowId, 'approve', { draftId, by: 'olga' });
    const other = decisions.decide(handle.workflowId, 'approve', { draftId: `${handle.workflowId}:draft:7`, by: 'mallory' });
    await new Promise((r) => setTimeout(r, 500));
    release();

    const outcome = await approved;
    assert.ok(outcome.ok, outcome.ok ? '' : outcome.message);
    assert.equal(outcome.result.draftId, draftId);
    const refused = await other;
    assert.equal(refused.ok, false);
    assert.equal(refused.ok ? undefined : refused.refused, true);
    assert.equal((await handle.result()).status, 'sent');
    assert.deepEqual(
      fake.calls.filter((c) => c.name === 'sendReply').map((c) => (c.input as { draftId: string }).draftId),
      [draftId],
    );
  });
});

test('approval names the draft: an edited body is passed on, the Update answers with the draft and status', async () => {
  const fake = fakeActivities({});
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    await waitForStatus(handle, 'awaiting_approval');
    const draft = await handle.query(draftQuery);
    assert.equal(draft?.to.address, 'erika@customer.example');
    const answer = await handle.executeUpdate(approveUpdate, { args: [{ draftId: draft!.draftId, by: 'ops', body: 'Edited reply' }] });
    assert.deepEqual([answer.draftId, answer.status], [draft!.draftId, 'approved']);
    const result = await handle.result();
    assert.equal(result.status, 'sent');
    assert.deepEqual(fake.decisions, [{ kind: 'approve', by: 'ops', body: 'Edited reply' }]);
    assert.equal(fake.calls.filter((c) => c.name === 'sendReply').length, 1);
    assert.deepEqual(
      fake.statuses,
      ['fetched', 'parsed', 'indexed', 'drafted', 'awaiting_approval', 'approved', 'sent'],
      'the workflow records every status',
    );
  });
});

test('refused decisions: each gets a clear message and nothing is applied', async () => {
  const fake = fakeActivities({});
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    await waitForStatus(handle, 'awaiting_approval');
    const draftId = await currentDraftId(handle);
    const refused = async (
      update: typeof approveUpdate | typeof rejectUpdate | typeof resendUpdate | typeof markSentUpdate,
      input: unknown,
      why: RegExp,
    ) => {
      await assert.rejects(
        handle.executeUpdate(update as typeof approveUpdate, { args: [input as never] }),
        (err: Error & { cause?: Error }) => {
          assert.match(err.cause?.message ?? err.message, why);
          return true;
        },
      );
    };
    await refused(approveUpdate, { draftId: `${handle.workflowId}:draft:7`, by: 'ops' }, /not the current one.*draft:1/);
    await refused(approveUpdate, { draftId, by: 'ops', body: '   ' }, /"body" must not be empty/);
    await refused(approveUpdate, { draftId, by: 'ops', body: 42 }, /"body" must be a string/);
    await refused(approveUpdate, { draftId, by: 'ops', body: 'x'.repeat(100_001) }, /at most 100000 are accepted/);
    // The approved text is sent as it stands: one naming an internal source id is refused, not cleaned.
    await refused(
      approveUpdate,
      { draftId, by: 'ops', body: 'Die Frist beträgt 14 Tage (Quelle: knowledge:faq/rechnung.md#1).' },
      /"body" names internal source ids \(knowledge:faq\/rechnung\.md#1\); the customer must not read them/,
    );
    await refused(approveUpdate, { draftId }, /"by" is required/);
    await refused(rejectUpdate, { draftId, by: 'ops' }, /"reason" is required/);
    await refused(resendUpdate, { draftId, by: 'ops', force: true }, /force applies only to a send in doubt/);
    await refused(markSentUpdate, { draftId, by: 'ops' }, /only a send in doubt/);
    await handle.executeUpdate(rejectUpdate, { args: [{ draftId, by: 'carol', reason: 'wrong tone' }] });
    assert.equal((await handle.result()).status, 'rejected');
    assert.deepEqual(fake.decisions, [{ kind: 'reject', by: 'carol', reason: 'wrong tone' }]);
  });
});

test('marked as spam: rejected, answered before the filter learns it; a second mark and a late approval are refused', async () => {
  let learnt: () => void = () => undefined;
  const fake = fakeActivities({}, undefined, { learn: new Promise<void>((r) => (learnt = r)) });
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    await waitForStatus(handle, 'awaiting_approval');
    const draftId = await currentDraftId(handle);
    await refusedWith(
      handle.executeUpdate(rejectUpdate, { args: [{ draftId, by: 'carol', spam: 'yes' as never }] }),
      /"spam" must be true or false/,
    );
    const answer = await handle.executeUpdate(rejectUpdate, { args: [{ draftId, by: 'carol', spam: true }] });
    assert.deepEqual(answer, { draftId, status: 'rejected', message: `draft ${draftId} rejected: marked as spam` });
    // The filter is still learning (the run is open): whatever comes now meets the decision that stands.
    await refusedWith(
      handle.executeUpdate(rejectUpdate, { args: [{ draftId, by: 'dave', spam: true }] }),
      /^mark as spam refused: marked as spam by carol came first$/,
    );
    await refusedWith(
      handle.executeUpdate(approveUpdate, { args: [{ draftId, by: 'dave' }] }),
      /^approve refused: marked as spam by carol came first$/,
    );
    learnt();
    assert.equal((await handle.result()).status, 'rejected');
    assert.deepEqual(fake.decisions, [{ kind: 'reject', by: 'carol', reason: 'spam', spam: true }]);
    assert.deepEqual(
      fake.calls.filter((c) => c.name === 'learnMarkedSpam').map((c) => c.input),
      [{ emailId: handle.workflowId, by: 'carol' }],
    );
    assert.equal(fake.calls.filter((c) => c.name === 'sendReply').length, 0, 'nothing is sent');
    assert.deepEqual((await handle.query(stateQuery)).decision, { kind: 'reject', by: 'carol', draftId, spam: true });
  });
});

test('a spam mark after an approval raced is refused; a filter that never learns leaves the spam mark standing', async () => {
  let sent: () => void = () => undefined;
  const approved = fakeActivities({}, undefined, { send: new Promise<void>((r) => (sent = r)) });
  await withWorker(approved, async (tq) => {
    const handle = await start(tq);
    await waitForStatus(handle, 'awaiting_approval');
    const draftId = await currentDraftId(handle);
    await handle.executeUpdate(approveUpdate, { args: [{ draftId, by: 'ops' }] });
    // The reply is being sent (the run is open): the spam mark of a reviewer who still had the page open.
    await refusedWith(
      handle.executeUpdate(rejectUpdate, { args: [{ draftId, by: 'carol', spam: true }] }),
      /^mark as spam refused: approve by ops came first$/,
    );
    sent();
    assert.equal((await handle.result()).status, 'sent');
    assert.equal(approved.calls.filter((c) => c.name === 'learnMarkedSpam').length, 0);
    assert.deepEqual(approved.decisions, [{ kind: 'approve', by: 'ops' }]);
  });

  // Every attempt to teach the filter fails (its worker's last attempt would audit it; here the activity itself fails).
  const failing = fakeActivities({
    learnMarkedSpam: [new TransientError('spamd down'), new TransientError('down'), new TransientError('down')],
  });
  await withWorker(failing, async (tq) => {
    const handle = await start(tq);
    await waitForStatus(handle, 'awaiting_approval');
    const draftId = await currentDraftId(handle);
    await handle.executeUpdate(rejectUpdate, { args: [{ draftId, by: 'carol', spam: true }] });
    assert.equal((await handle.result()).status, 'rejected', 'the decision stands');
    assert.deepEqual(
      failing.calls.filter((c) => c.name === 'learnMarkedSpam').map((c) => c.attempt),
      [1, 2, 3],
      'tried SPAM_LEARN_ATTEMPTS times',
    );
  });
});

test('a second decision, and a signal before any draft, are refused; signal refusals are audited and shown', async () => {
  const fake = fakeActivities({});
  const slowFetch = fake.activities.fetchEmail;
  let fetched: () => void = () => undefined;
  const fetchGate = new Promise<void>((r) => (fetched = r));
  fake.activities.fetchEmail = async (i) => {
    await fetchGate;
    return slowFetch(i);
  };
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    await handle.signal(approveSignal, { draftId: `${handle.workflowId}:draft:1`, by: 'too-early' });
    fetched();
    await waitForStatus(handle, 'awaiting_approval');
    const draftId = await currentDraftId(handle);
    await handle.signal(approveSignal, { draftId, by: 'ops' });
    await handle.signal(rejectSignal, { draftId, by: 'late', reason: 'no' });
    assert.equal((await handle.result()).status, 'sent');
    const state = await handle.query(stateQuery);
    assert.deepEqual(fake.decisions, [{ kind: 'approve', by: 'ops' }]);
    assert.deepEqual(
      state.refusals.map((r) => r.by),
      ['too-early', 'late'],
    );
    assert.match(state.refusals[0]!.reason, /waits for no decision/);
    assert.match(state.refusals[1]!.reason, /approve by ops came first/);
    assert.equal(fake.refusals.length, 2, 'each refused signal has an audit row');
  });
});

test('the LLM giving up leads to manual_review; only an approval with a body written by a person proceeds', async () => {
  const fake = fakeActivities({
    draftReply: [new TransientError('LLM timeout', 'LLM_TIMEOUT'), new TransientError('LLM timeout', 'LLM_TIMEOUT')],
  });
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    await waitForStatus(handle, 'manual_review');
    assert.equal(fake.calls.filter((c) => c.name === 'draftReply').length, 2, 'one retry, then a person');
    const draftId = await currentDraftId(handle);
    await refusedWith(handle.executeUpdate(approveUpdate, { args: [{ draftId, by: 'ops' }] }), /manual_review/);
    await handle.signal(approveSignal, { draftId, by: 'ops', body: 'Written by a person' });
    assert.equal((await handle.result()).status, 'sent');
    const state = await handle.query(stateQuery);
    assert.equal(state.draft?.drafter, 'human');
  });
});

test('SMTP failures: three attempts, the draft stays approved, and it is sent on the next round', async () => {
  const smtpDown = () => new TransientError('451 try later', 'SMTP_TRANSIENT');
  const fake = fakeActivities({ sendReply: [smtpDown(), smtpDown(), smtpDown()] });
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    await waitForStatus(handle, 'awaiting_approval');
    await handle.signal(approveSignal, { draftId: await currentDraftId(handle), by: 'ops' });
    const result = await handle.result();
    assert.equal(result.status, 'sent');
    assert.equal(fake.calls.filter((c) => c.name === 'sendReply').length, 4);
    assert.deepEqual(fake.outcomes, [{ status: 'approved', eventType: 'send_gave_up' }]);
    const sendRows = (await jobRows(handle.workflowId)).filter((r) => r.step === 'send');
    assert.deepEqual(
      sendRows.map((r) => r.status),
      ['dead', 'done'],
      'each round has its own queue row',
    );
  });
});

test('a resend retries a failed send round at once', async () => {
  const fake = fakeActivities({ sendReply: [1, 2, 3].map(() => new TransientError('451', 'SMTP_TRANSIENT')) });
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    await waitForStatus(handle, 'awaiting_approval');
    await handle.signal(approveSignal, { draftId: await currentDraftId(handle), by: 'ops' });
    for (let i = 0; i < 400 && fake.outcomes.length === 0; i++) await env.sleep('5 seconds');
    const answer = await handle.executeUpdate(resendUpdate, { args: [{ by: 'ops' }] });
    assert.match(answer.message, /send round 2 started by ops/);
    assert.equal((await handle.result()).status, 'sent');
  });
});

test('a send in doubt waits for a person: plain resend refused, force is one-shot, the forced attempt is keyed', async () => {
  const inDoubt = () => new PermanentError('interrupted after the final dot', 'SEND_IN_DOUBT');
  const fake = fakeActivities({ sendReply: [inDoubt(), inDoubt()] });
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    await waitForStatus(handle, 'awaiting_approval');
    await handle.signal(approveSignal, { draftId: await currentDraftId(handle), by: 'ops' });
    for (let i = 0; i < 100 && fake.outcomes.length === 0; i++) await env.sleep('5 seconds');
    assert.deepEqual(fake.outcomes, [{ status: 'approved', eventType: 'send_waits_for_operator' }]);
    assert.equal((await handle.query(stateQuery)).waitingFor?.kind, 'send_in_doubt');
    await refusedWith(handle.executeUpdate(resendUpdate, { args: [{ by: 'ops' }] }), /in doubt/);
    await env.sleep('2 hours');
    assert.equal(fake.calls.filter((c) => c.name === 'sendReply').length, 1, 'no automatic resend, not even after the timer');
    await refusedWith(handle.executeUpdate(resendUpdate, { args: [{ by: 'alice', force: true }] }), /"draftId" is required/);
    await handle.executeUpdate(resendUpdate, { args: [{ draftId: await currentDraftId(handle), by: 'alice', force: true }] });
    // The forced attempt went in doubt again: the force is spent, a person must decide again.
    for (let i = 0; i < 100 && fake.outcomes.length < 2; i++) await env.sleep('5 seconds');
    const forced = fake.calls.filter((c) => c.name === 'sendReply').at(-1)?.input as { force?: { by: string; key: string } };
    assert.equal(forced.force?.by, 'alice');
    assert.match(forced.force?.key ?? '', /:2$/);
    await env.sleep('2 hours');
    assert.equal(fake.calls.filter((c) => c.name === 'sendReply').length, 2);
    await refusedWith(handle.executeUpdate(markSentUpdate, { args: [{ by: 'bob' } as never] }), /"draftId" is required/);
    const answer = await handle.executeUpdate(markSentUpdate, {
      args: [{ draftId: await currentDraftId(handle), by: 'bob', note: 'customer confirmed' }],
    });
    assert.equal(answer.status, 'sent');
    assert.equal((await handle.result()).status, 'sent');
    assert.equal(fake.calls.filter((c) => c.name === 'confirmSentByOperator').length, 1);
  });
});

test('from manual_review a person can ask for a new draft once the LLM is back; a stale draft id is refused', async () => {
  const timeout = () => new TransientError('LLM timeout', 'LLM_TIMEOUT');
  const fake = fakeActivities({ draftReply: [timeout(), timeout()] });
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    await waitForStatus(handle, 'manual_review');
    const first = await currentDraftId(handle);
    await handle.executeUpdate(redraftUpdate, { args: [{ draftId: first, by: 'ops' }] });
    await waitForStatus(handle, 'awaiting_approval');
    const drafts = fake.calls.filter((c) => c.name === 'draftReply');
    // Transition 1 was recorded by the intake, 2 reserved for the failed first draft, 3 manual_review: the redraft records the 4th.
    assert.deepEqual(drafts.at(-1)?.input, {
      emailId: handle.workflowId,
      version: 2,
      requestedBy: 'ops',
      record: { seq: 4 },
    });
    await refusedWith(handle.executeUpdate(approveUpdate, { args: [{ draftId: first, by: 'ops' }] }), /not the current one/);
    await handle.signal(approveSignal, { draftId: await currentDraftId(handle), by: 'ops' });
    assert.equal((await handle.result()).status, 'sent');
  });
});

test('a follow-up in the thread makes the waiting draft stale: approving it is refused, the new one must be approved', async () => {
  const fake = fakeActivities({});
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    await waitForStatus(handle, 'awaiting_approval');
    const v1 = await currentDraftId(handle);
    await handle.signal(threadUpdatedSignal, { by: 'new-message-in-thread' });
    await refusedWith(handle.executeUpdate(approveUpdate, { args: [{ draftId: v1, by: 'ops' }] }), /refused/);
    for (let i = 0; i < 100 && (await handle.query(stateQuery)).drafts < 2; i++) await env.sleep('1 second');
    const v2 = await currentDraftId(handle);
    assert.notEqual(v2, v1);
    await refusedWith(handle.executeUpdate(approveUpdate, { args: [{ draftId: v1, by: 'ops' }] }), /not the current one/);
    await handle.executeUpdate(approveUpdate, { args: [{ draftId: v2, by: 'ops' }] });
    assert.equal((await handle.result()).status, 'sent');
    assert.equal(fake.calls.filter((c) => c.name === 'sendReply').length, 1);
  });
});

test('the draft limit: after maxDrafts drafts the email goes to manual_review and redraft is refused', async () => {
  const fake = fakeActivities({});
  await withWorker(fake, async (tq) => {
    const emailId = `email-${randomUUID()}`;
    const handle = await env.client.workflow.start(EmailWorkflow, {
      taskQueue: tq,
      workflowId: emailId,
      args: [{ emailId, source: { kind: 'stored' }, maxDrafts: 2 }],
    });
    await waitForStatus(handle, 'awaiting_approval');
    await handle.executeUpdate(redraftUpdate, { args: [{ draftId: await currentDraftId(handle), by: 'ops' }] });
    for (let i = 0; i < 100 && (await handle.query(stateQuery)).drafts < 2; i++) await env.sleep('1 second');
    await waitForStatus(handle, 'awaiting_approval');
    await refusedWith(
      handle.executeUpdate(redraftUpdate, { args: [{ draftId: await currentDraftId(handle), by: 'ops' }] }),
      /limit of drafts/,
    );
    await handle.signal(threadUpdatedSignal, {});
    await waitForStatus(handle, 'manual_review');
    assert.equal(fake.calls.filter((c) => c.name === 'draftReply').length, 2);
    await handle.executeUpdate(approveUpdate, { args: [{ draftId: await currentDraftId(handle), by: 'ops', body: 'Mine' }] });
    assert.equal((await handle.result()).status, 'sent');
  });
});

test('a run that finds the reply already sent (e.g. after a reset) completes as sent without drafting or sending', async () => {
  const emailId = `email-${randomUUID()}`;
  const fake = fakeActivities({}, { send: { draftId: `${emailId}:draft:1`, status: 'sent', messageId: '<r@x>' }, maxDraftVersion: 1 });
  await withWorker(fake, async (tq) => {
    const handle = await start(tq, emailId);
    const result = await handle.result();
    assert.deepEqual(result, { status: 'sent', messageId: '<r@x>' });
    assert.equal(fake.calls.filter((c) => c.name === 'draftReply' || c.name === 'sendReply').length, 0);
    assert.deepEqual(fake.outcomes.at(-1), { status: 'sent', eventType: 'already_sent' });
  });
});

test('a run that finds a send in doubt waits for a person instead of drafting a second reply', async () => {
  const emailId = `email-${randomUUID()}`;
  const fake = fakeActivities(
    { sendReply: [new PermanentError('in doubt', 'SEND_IN_DOUBT')] },
    { send: { draftId: `${emailId}:draft:1`, status: 'in_doubt', messageId: '<r@x>' }, maxDraftVersion: 1 },
  );
  await withWorker(fake, async (tq) => {
    const handle = await start(tq, emailId);
    for (let i = 0; i < 100 && (await handle.query(stateQuery)).waitingFor?.kind !== 'send_in_doubt'; i++) await env.sleep('1 second');
    assert.equal(fake.calls.filter((c) => c.name === 'draftReply').length, 0);
    await handle.executeUpdate(markSentUpdate, { args: [{ draftId: await currentDraftId(handle), by: 'ops' }] });
    assert.equal((await handle.result()).status, 'sent');
  });
});

test('search attributes are written when a value changes: none for the short pipeline statuses, one upsert on reaching approval', async () => {
  const fake = fakeActivities({});
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    await waitForStatus(handle, 'awaiting_approval');
    const written = async () =>
      ((await handle.fetchHistory()).events ?? []).flatMap((e) => {
        const fields = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
        return fields ? [Object.keys(fields).sort().join('+')] : [];
      });
    // The patch's own TemporalChangeVersion upserts aside: priority and mailbox come with the
    // first status worth showing, and fetched/parsed/indexed are kept in MariaDB only.
    assert.deepEqual(
      (await written()).filter((w) => w !== 'TemporalChangeVersion'),
      ['DraftVersion+EmailPriority+EmailStatus+Mailbox+NeedsHuman'],
    );
    const attrs = (await handle.describe()).searchAttributes;
    assert.deepEqual(
      [attrs.EmailStatus, attrs.NeedsHuman, attrs.EmailPriority, attrs.Mailbox],
      [['awaiting_approval'], [true], ['normal'], ['file']],
    );
    // A transition that changes nothing operators filter on writes nothing.
    await handle.signal(approveSignal, { draftId: await currentDraftId(handle), by: 'ops' });
    assert.equal((await handle.result()).status, 'sent');
    const statuses = (await written()).filter((w) => w.includes('EmailStatus'));
    assert.deepEqual(statuses, ['DraftVersion+EmailPriority+EmailStatus+Mailbox+NeedsHuman', 'EmailStatus+NeedsHuman', 'EmailStatus']);
  });
});

/** The markers a run recorded, and the activities it scheduled with the `record` each was handed. */
async function recordedSteps(handle: Awaited<ReturnType<typeof start>>) {
  const history = (await handle.fetchHistory()).events ?? [];
  // A local activity's marker named by its activity type (from the marker's data), a patch by `core_patch`.
  const markers = history.flatMap((e) => {
    const m = e.markerRecordedEventAttributes;
    if (!m) return [];
    if (m.markerName !== 'core_local_activity') return [m.markerName];
    const data = JSON.parse(Buffer.from(m.details!.data!.payloads![0]!.data!).toString()) as { activity_type: string };
    return [`local:${data.activity_type}`];
  });
  const scheduled = history.flatMap((e) => {
    const a = e.activityTaskScheduledEventAttributes;
    if (!a) return [];
    const input = JSON.parse(Buffer.from(a.input!.payloads![0]!.data!).toString()) as { record?: unknown };
    return [{ type: a.activityType?.name, record: input.record }];
  });
  return { markers, scheduled };
}

test('the intake runs in the first workflow task, and the intake and the draft record the status they reach', async () => {
  const fake = fakeActivities({});
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    await waitForStatus(handle, 'awaiting_approval');
    const { markers, scheduled } = await recordedSteps(handle);
    // The intake alone (one workflow generation, no patch marker): no status was written by a local activity of its own.
    assert.deepEqual(markers, ['local:ingestEmail']);
    // The workflow numbers the transitions; each activity records its own with that number.
    const intake = fake.calls.find((c) => c.name === 'fetchEmail')?.input as { record?: unknown };
    assert.deepEqual(intake.record, {
      seq: 1,
      via: [
        { status: 'fetched', reason: 'stored message' },
        { status: 'parsed', reason: 'parsed' },
      ],
    });
    assert.deepEqual(scheduled, [{ type: 'draftReply', record: { seq: 2 } }]);
    // The intake took no task round trip: the workflow task that recorded it (its marker) also
    // scheduled the draft, and no activity task ran before. (A task the SDK completes empty while a
    // local activity still runs, to keep the task alive, may come before it: on the time-skipping
    // test server its clock can pass the task's deadline in a moment. That is no round trip.)
    const history = (await handle.fetchHistory()).events ?? [];
    const draftScheduled = history.findIndex((e) => e.activityTaskScheduledEventAttributes);
    const intakeRecorded = history.findIndex((e) => e.markerRecordedEventAttributes);
    assert.ok(intakeRecorded >= 0 && intakeRecorded < draftScheduled, 'the intake is recorded before the draft is scheduled');
    assert.equal(history.slice(intakeRecorded, draftScheduled).filter((e) => e.workflowTaskCompletedEventAttributes).length, 0);
    assert.ok(
      !history.slice(0, intakeRecorded).some((e) => e.activityTaskScheduledEventAttributes || e.timerStartedEventAttributes),
      'no activity or timer before the intake was recorded',
    );
    assert.deepEqual(fake.statuses, ['fetched', 'parsed', 'indexed', 'drafted', 'awaiting_approval']);
    // The Web UI line and the search attributes follow as if the workflow had written the status.
    const attrs = (await handle.describe()).searchAttributes;
    assert.deepEqual([attrs.EmailStatus, attrs.NeedsHuman], [['awaiting_approval'], [true]]);
    // A decision still goes through the workflow's own write (transition 3).
    await handle.signal(rejectSignal, { draftId: await currentDraftId(handle), by: 'test', reason: 'done here' });
    assert.equal((await handle.result()).status, 'rejected');
    assert.deepEqual(fake.statuses.slice(-1), ['rejected']);
  });
});

test('the decision is recorded in the workflow task that accepted it, and the send records `sent` itself', async () => {
  const fake = fakeActivities({});
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    await waitForStatus(handle, 'awaiting_approval');
    await handle.executeUpdate(approveUpdate, { args: [{ draftId: await currentDraftId(handle), by: 'ops' }] });
    assert.equal((await handle.result()).status, 'sent');
    const { markers, scheduled } = await recordedSteps(handle);
    // The patch marker, the intake, then the decision's local activity; no status written on its own.
    assert.deepEqual(markers, ['local:ingestEmail', 'local:recordDecision']);
    // The workflow numbers the transitions; each activity records its own under that number.
    assert.deepEqual(
      scheduled.map((a) => ({ type: a.type, seq: (a.record as { seq?: number } | undefined)?.seq })),
      [
        { type: 'draftReply', seq: 2 },
        { type: 'sendReply', seq: 4 },
      ],
    );
    assert.deepEqual(fake.decisions, [{ kind: 'approve', by: 'ops' }]);
    assert.deepEqual(fake.statuses, ['fetched', 'parsed', 'indexed', 'drafted', 'awaiting_approval', 'approved', 'sent']);
    // One workflow task took the Update, recorded the decision, answered and scheduled the send.
    const history = (await handle.fetchHistory()).events ?? [];
    const kinds = history.map((e) =>
      e.workflowExecutionUpdateAcceptedEventAttributes
        ? 'accepted'
        : e.workflowExecutionUpdateCompletedEventAttributes
          ? 'completed'
          : e.markerRecordedEventAttributes?.markerName === 'core_local_activity'
            ? 'decision'
            : e.activityTaskScheduledEventAttributes?.activityType?.name === 'sendReply'
              ? 'send'
              : e.workflowTaskCompletedEventAttributes
                ? 'task'
                : null,
    );
    // The commands of one task follow its completion: everything up to the next completed task is that one task's work.
    const fromAccepted = kinds.slice(kinds.indexOf('accepted')).filter((k) => k !== null);
    const oneTask = fromAccepted.slice(0, fromAccepted.indexOf('task'));
    assert.deepEqual([...oneTask].sort(), ['accepted', 'completed', 'decision', 'send']);
    // The decision's queue row is written as for every step.
    assert.deepEqual(
      (await jobRows(handle.workflowId)).filter((r) => r.step === 'decide').map((r) => `${r.step}:${r.status}:${r.attempt}`),
      ['decide:done:1'],
    );
    const attrs = (await handle.describe()).searchAttributes;
    assert.deepEqual([attrs.EmailStatus, attrs.NeedsHuman], [['sent'], [false]], 'the search attributes follow the recorded status');
    assert.equal(fake.calls.filter((c) => c.name === 'sendReply').length, 1);
  });
});

test('a decision whose write fails is retried inside the workflow and recorded once MariaDB answers', async () => {
  const fake = fakeActivities({ recordDecision: [new TransientError('MariaDB gone', 'DB_UNAVAILABLE')] });
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    await waitForStatus(handle, 'awaiting_approval');
    const answer = await handle.executeUpdate(approveUpdate, { args: [{ draftId: await currentDraftId(handle), by: 'ops' }] });
    assert.equal(answer.status, 'approved');
    assert.equal((await handle.result()).status, 'sent');
    assert.deepEqual(
      fake.calls.filter((c) => c.name === 'recordDecision').map((c) => c.attempt),
      [1, 2],
    );
    const rows = (await jobRows(handle.workflowId)).filter((r) => r.step === 'decide');
    assert.deepEqual(rows, [{ step: 'decide', status: 'done', attempt: 2, retry_count: 1, error_class: 'transient' }]);
    assert.deepEqual(fake.statuses.slice(-2), ['approved', 'sent']);
  });
});

test('a failed status write after the reply left does not fail the send: the workflow records `sent` itself', async () => {
  // Writes by task-queue activities: the draft's passes, the send's (the second) fails (intake and decision are local).
  const fake = fakeActivities({ recordStatus: [null, new TransientError('MariaDB gone', 'DB_UNAVAILABLE')] });
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    await waitForStatus(handle, 'awaiting_approval');
    await handle.executeUpdate(approveUpdate, { args: [{ draftId: await currentDraftId(handle), by: 'ops' }] });
    assert.deepEqual(await handle.result(), { status: 'sent', messageId: `<reply-${handle.workflowId}:draft:1@example.test>` });
    // Sent once: the step did not retry (its retries would be SMTP attempts), and no send round failed.
    assert.equal(fake.calls.filter((c) => c.name === 'sendReply').length, 1);
    assert.deepEqual(fake.outcomes, [], 'no send_gave_up: the send round succeeded');
    const { markers } = await recordedSteps(handle);
    assert.deepEqual(
      markers,
      ['local:ingestEmail', 'local:recordDecision', 'local:recordStatus'],
      'the intake, the decision, then `sent` written by the workflow in its own local activity',
    );
    assert.deepEqual(fake.statuses.slice(-2), ['approved', 'sent']);
    assert.deepEqual((await handle.describe()).searchAttributes.EmailStatus, ['sent']);
  });
});

test('fetch, parse and index run as one activity, yet each step keeps its own queue row, attempts and retry plan', async () => {
  const fake = fakeActivities({
    fetchEmail: [new TransientError('imap down'), new TransientError('imap still down')],
    indexEmail: [new TransientError('index hiccup')],
  });
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    await waitForStatus(handle, 'awaiting_approval');
    const history = (await handle.fetchHistory()).events ?? [];
    const scheduled = history.flatMap((e) => {
      const t = e.activityTaskScheduledEventAttributes?.activityType?.name;
      return t ? [t] : [];
    });
    // No task round trip for the three steps: they run in the first workflow task; the draft is the one activity task.
    assert.deepEqual(scheduled, ['draftReply']);
    // The step's own count: fetch failed twice, index once; parse never failed, though re-run on each retry.
    const rows = (await jobRows(handle.workflowId)).filter((r) => ['fetch', 'parse', 'index'].includes(r.step));
    assert.deepEqual(rows, [
      { step: 'fetch', status: 'done', attempt: 3, retry_count: 2, error_class: 'transient' },
      { step: 'parse', status: 'done', attempt: 1, retry_count: 0, error_class: null },
      { step: 'index', status: 'done', attempt: 2, retry_count: 1, error_class: 'transient' },
    ]);
    assert.deepEqual(
      fake.calls.filter((c) => c.name !== 'draftReply').map((c) => `${c.name}#${c.attempt}`),
      ['fetchEmail#1', 'fetchEmail#2', 'fetchEmail#3', 'parseEmail#3', 'indexEmail#3', 'fetchEmail#4', 'parseEmail#4', 'indexEmail#4'],
    );
    // Each gap follows the plan of the step that failed: 30 s and 120 s for fetch, then 30 s for index (±10 %).
    const firsts = [1, 2, 3, 4].map((n) => fake.calls.find((c) => c.name === 'fetchEmail' && c.attempt === n)!.startedMs);
    const gaps = firsts.slice(1).map((t, i) => (t - firsts[i]!) / 1000);
    for (const [i, expected] of [30, 120, 30].entries()) {
      assert.ok(gaps[i]! >= expected * 0.9 && gaps[i]! <= expected * 1.1 + 2, `gap ${i + 1} was ${gaps[i]} s, expected ~${expected} s`);
    }
    assert.deepEqual(fake.statuses, ['fetched', 'parsed', 'indexed', 'drafted', 'awaiting_approval']);
    await handle.signal(rejectSignal, { draftId: await currentDraftId(handle), by: 'test', reason: 'done here' });
    assert.equal((await handle.result()).status, 'rejected');
  });
});

test('with a fleet-wide mail-io rate the intake stays an activity on the mail-io queue (input `intake: queue`)', async () => {
  const fake = fakeActivities({ fetchEmail: [new TransientError('imap down')] });
  await withWorker(fake, async (tq) => {
    const emailId = `email-${randomUUID()}`;
    const handle = await env.client.workflow.start(EmailWorkflow, {
      taskQueue: tq,
      workflowId: emailId,
      args: [{ emailId, source: { kind: 'stored' }, intake: 'queue' }],
    });
    await waitForStatus(handle, 'awaiting_approval');
    const history = (await handle.fetchHistory()).events ?? [];
    const scheduled = history.flatMap((e) => {
      const a = e.activityTaskScheduledEventAttributes;
      return a ? [`${a.activityType?.name}@${a.taskQueue?.name}`] : [];
    });
    assert.deepEqual(scheduled, [`ingestEmail@${tq}-mail-io`, `draftReply@${tq}-llm`]);
    const { markers } = await recordedSteps(handle);
    assert.deepEqual(markers, [], 'no local activity: the intake went through the queue, where the rate applies');
    // Its rows are keyed by the activity task, retried by the server on the interceptor's schedule.
    const rows = (await jobRows(handle.workflowId)).filter((r) => ['fetch', 'parse', 'index'].includes(r.step));
    assert.deepEqual(
      rows.map((r) => `${r.step}:${r.status}:${r.attempt}`),
      ['fetch:done:2', 'parse:done:1', 'index:done:1'],
    );
    assert.deepEqual(fake.statuses, ['fetched', 'parsed', 'indexed', 'drafted', 'awaiting_approval']);
    await handle.signal(rejectSignal, { draftId: await currentDraftId(handle), by: 'test', reason: 'done here' });
    assert.equal((await handle.result()).status, 'rejected');
  });
});

test('the draft step’s start-to-close timeout follows LLM_TIMEOUT_MS from the input; without it, the profile’s 3 minutes', async () => {
  const fake = fakeActivities({});
  await withWorker(fake, async (tq) => {
    const draftTimeout = async (input: Record<string, unknown>) => {
      const emailId = `email-${randomUUID()}`;
      const handle = await env.client.workflow.start(EmailWorkflow, {
        taskQueue: tq,
        workflowId: emailId,
        args: [{ emailId, source: { kind: 'stored' }, ...input }],
      });
      await waitForStatus(handle, 'awaiting_approval');
      const history = (await handle.fetchHistory()).events ?? [];
      const scheduled = history.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'draftReply');
      await handle.signal(rejectSignal, { draftId: await currentDraftId(handle), by: 'test', reason: 'done here' });
      await handle.result();
      return Number(scheduled?.activityTaskScheduledEventAttributes?.startToCloseTimeout?.seconds ?? 0);
    };
    // A slow local model: 5 minutes a call, two calls and a minute for the step.
    assert.equal(await draftTimeout({ llmTimeoutMs: 300_000 }), 660);
    assert.equal(await draftTimeout({}), 180);
  });
});

test('a parse failure inside the combined activity ends the email as failed (parse_failed) after its stored message', async () => {
  const fake = fakeActivities({ parseEmail: [new PermanentError('corrupt MIME', 'MALFORMED_MESSAGE')] });
  await withWorker(fake, async (tq) => {
    const handle = await start(tq);
    assert.equal((await handle.result()).status, 'failed');
    assert.deepEqual(fake.statuses, ['fetched', 'failed']);
    assert.deepEqual(fake.outcomes, [{ status: 'failed', eventType: 'parse_failed' }]);
    assert.deepEqual(
      (await jobRows(handle.workflowId)).map((r) => `${r.step}:${r.status}`),
      ['fetch:done', 'parse:dead'],
    );
  });
});
