/**
 * Replay: every history recorded by scripts/capture-histories.ts (real servers, the workflow code
 * of its day) must still replay with the workflow code of today. Emails wait days for approval,
 * so a deployment meets histories written by the previous code; a change that is not guarded by
 * `patched()` fails here with a DeterminismViolationError instead of stranding those emails.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { before, test } from 'node:test';
import type { History } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { DECISIONS, PATCHES } from '../../lib/contract';
import { historyFromJson } from '../../scripts/replay/history-json';
import { workflowBundle } from '../support/workflow-bundle';

const HISTORIES = path.join(__dirname, 'histories');
/**
 * The paths the captured set must keep covering; a lost file must not pass silently. Two
 * generations: the runs written before decisions became Updates (they replay on the legacy branch
 * behind `patched()`), and the `v2-` runs written by the current code.
 */
const REQUIRED_BEFORE_UPDATES = [
  'approve-sent',
  'approve-edited-sent',
  'reject',
  'redraft-then-approve',
  'manual-review-approve-body',
  'send-failed-round-resend',
  'send-in-doubt-force',
  'waiting-for-approval',
  'history-only',
  'parse-failed',
  'fetch-failed',
];
const REQUIRED_V2 = [
  'v2-approve-sent',
  'v2-approve-edited-sent',
  'v2-reject',
  'v2-redraft-then-approve',
  'v2-manual-review-approve-body',
  'v2-send-failed-round-resend',
  'v2-send-in-doubt-force',
  'v2-send-in-doubt-mark-sent',
  'v2-refused-decisions',
  'v2-thread-follow-up',
  'v2-triaged-ignored',
  'v2-waiting-for-approval',
  'v2-history-only',
  'v2-parse-failed',
  'v2-reset-after-sent',
];
/** The `v3-` runs: search attributes written only when a value changes (`lean-visibility-v3`). */
const REQUIRED_V3 = REQUIRED_V2.map((name) => name.replace(/^v2-/, 'v3-'));
/** The `v4-` runs: fetch, parse and index as one activity (`ingest-in-one-activity-v4`). */
const REQUIRED_V4 = REQUIRED_V2.map((name) => name.replace(/^v2-/, 'v4-'));
/** The `v5-` runs: the intake and draft activities record the status they reach (`status-with-step-v5`). */
const REQUIRED_V5 = REQUIRED_V2.map((name) => name.replace(/^v2-/, 'v5-'));
/** The `v6-` runs: the send activity records `sent` too (`send-records-sent-v6`). */
const REQUIRED_V6 = REQUIRED_V2.map((name) => name.replace(/^v2-/, 'v6-'));
/** The `v7-` runs: a decision is recorded in the workflow task that accepted it (`decision-in-update-task-v7`). */
const REQUIRED_V7 = REQUIRED_V2.map((name) => name.replace(/^v2-/, 'v7-'));
/** The `v8-` runs: the intake runs as a local activity in the first workflow task (`intake-in-workflow-task-v8`). */
const REQUIRED_V8 = REQUIRED_V2.map((name) => name.replace(/^v2-/, 'v8-'));
/**
 * ImapPollWorkflow: a run cut by BACKLOG_LIMIT, recorded when such a run ended at the cut, and the
 * `poll-v1-` run that waits for room (`poll-waits-for-backlog-v1`).
 */
const REQUIRED_POLL = ['poll-cut-by-backlog', 'poll-v1-waits-for-backlog'];
const REQUIRED = [
  ...REQUIRED_BEFORE_UPDATES,
  ...REQUIRED_V2,
  ...REQUIRED_V3,
  ...REQUIRED_V4,
  ...REQUIRED_V5,
  ...REQUIRED_V6,
  ...REQUIRED_V7,
  ...REQUIRED_V8,
  ...REQUIRED_POLL,
];

interface Captured {
  name: string;
  workflowId: string;
  json: { events: Array<Record<string, unknown>> };
}

let bundle: { codePath: string };
let captured: Captured[];

before(async () => {
  // Each replay starts and stops a worker; their state changes are noise here.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  bundle = await workflowBundle();
  const manifest = JSON.parse(readFileSync(path.join(__dirname, 'manifest.json'), 'utf8')) as Record<string, { workflowId: string }>;
  captured = readdirSync(HISTORIES)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const name = f.replace(/\.json$/, '');
      // Replays run under the original workflow id, in case the workflow ever reads it.
      const workflowId = manifest[name]?.workflowId ?? `replay-${name}`;
      return { name, workflowId, json: JSON.parse(readFileSync(path.join(HISTORIES, f), 'utf8')) as Captured['json'] };
    });
});

/** Replays all given histories with the current workflow code; scenario name → error text. */
async function replay(items: Array<{ name: string; workflowId: string; history: History }>): Promise<Map<string, string>> {
  const byId = new Map(items.map((i) => [i.workflowId, i.name]));
  const failures = new Map<string, string>();
  const seen = new Set<string>();
  const results = Worker.runReplayHistories(
    { workflowBundle: bundle, replayName: 'email-rag-replay' },
    items.map((i) => ({ workflowId: i.workflowId, history: i.history })),
  );
  for await (const r of results) {
    const name = byId.get(r.workflowId) ?? r.workflowId;
    seen.add(name);
    if (r.error) failures.set(name, `${r.error.name}: ${r.error.message}`);
  }
  for (const i of items) if (!seen.has(i.name)) failures.set(i.name, 'no replay result');
  return failures;
}

const load = (c: Captured) => ({ name: c.name, workflowId: c.workflowId, history: historyFromJson(c.json) });

test('the captured set covers every path of the email workflow', () => {
  const names = captured.map((c) => c.name);
  assert.deepEqual(
    REQUIRED.filter((r) => !names.includes(r)),
    [],
    'missing histories: run scripts/capture-histories.ts with the workflow code that wrote them',
  );
  for (const name of [
    'waiting-for-approval',
    'v2-waiting-for-approval',
    'v3-waiting-for-approval',
    'v4-waiting-for-approval',
    'v5-waiting-for-approval',
    'v6-waiting-for-approval',
    'v7-waiting-for-approval',
    'v8-waiting-for-approval',
  ]) {
    const last = captured.find((c) => c.name === name)?.json.events.at(-1);
    assert.ok(last && !('workflowExecutionCompletedEventAttributes' in last), `${name} is an open (partial) history`);
  }
});

/** The patch ids a history recorded with `patched()`. */
function patchesOf(c: Captured): string[] {
  return c.json.events.flatMap((e) => {
    const m = e.markerRecordedEventAttributes as
      { markerName?: string; details?: Record<string, { payloads?: Array<{ data?: string }> }> } | undefined;
    if (m?.markerName !== 'core_patch') return [];
    const data = m.details?.['patch-data']?.payloads?.[0]?.data ?? '';
    return [(JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as { id: string }).id];
  });
}

/** Decision names a history received as accepted Updates. */
function updatesOf(c: Captured): string[] {
  return c.json.events.flatMap((e) => {
    const a = e.workflowExecutionUpdateAcceptedEventAttributes as { acceptedRequest?: { input?: { name?: string } } } | undefined;
    return a?.acceptedRequest?.input?.name ? [a.acceptedRequest.input.name] : [];
  });
}

test('each generation takes its own branch: v8, v7, v6, v5 and v4 histories recorded only their newest patch (it implies the others), v3 two, v2 the first, the earlier ones none', () => {
  for (const c of captured.filter((x) => !x.name.startsWith('poll-'))) {
    const patches = patchesOf(c);
    if (c.name.startsWith('v8-')) {
      assert.deepEqual(patches, [PATCHES.intakeInWorkflowTaskV8], `${c.name} was recorded by the current code`);
    } else if (c.name.startsWith('v7-')) {
      assert.deepEqual(patches, [PATCHES.decisionInUpdateTaskV7], `${c.name} was recorded before ${PATCHES.intakeInWorkflowTaskV8}`);
    } else if (c.name.startsWith('v6-')) {
      assert.deepEqual(patches, [PATCHES.sendRecordsSentV6], `${c.name} was recorded before ${PATCHES.decisionInUpdateTaskV7}`);
    } else if (c.name.startsWith('v5-')) {
      assert.deepEqual(patches, [PATCHES.statusWithStepV5], `${c.name} was recorded before ${PATCHES.sendRecordsSentV6}`);
    } else if (c.name.startsWith('v4-')) {
      assert.deepEqual(patches, [PATCHES.ingestV4], `${c.name} was recorded before ${PATCHES.statusWithStepV5}`);
    } else if (c.name.startsWith('v3-')) {
      assert.deepEqual(patches, [PATCHES.decisionsV2, PATCHES.leanVisibilityV3], `${c.name} was recorded before ${PATCHES.ingestV4}`);
    } else if (c.name.startsWith('v2-')) {
      assert.ok(patches.includes(PATCHES.decisionsV2), `${c.name} was recorded after ${PATCHES.decisionsV2}`);
      assert.ok(!patches.includes(PATCHES.leanVisibilityV3), `${c.name} was recorded before ${PATCHES.leanVisibilityV3}`);
    } else assert.deepEqual(patches, [], `${c.name} was recorded before ${PATCHES.decisionsV2}`);
  }
  // Every decision reached the code of each generation as an Update in some history.
  for (const c of captured.filter((x) => x.name.startsWith('poll-'))) {
    if (c.name.startsWith('poll-v1-')) assert.deepEqual(patchesOf(c), [PATCHES.pollWaitsForBacklog], `${c.name} waited for the backlog`);
    else assert.deepEqual(patchesOf(c), [], `${c.name} was recorded before ${PATCHES.pollWaitsForBacklog}`);
  }
  for (const generation of ['v2-', 'v3-', 'v4-', 'v5-', 'v6-', 'v7-', 'v8-']) {
    const updates = new Set(captured.filter((c) => c.name.startsWith(generation)).flatMap(updatesOf));
    assert.deepEqual(
      Object.values(DECISIONS).filter((d) => !updates.has(d)),
      [],
      `decisions never captured as an Update in a ${generation} history`,
    );
  }
});

/** The events of one captured history. */
function eventsOf(name: string): Array<Record<string, unknown>> {
  const c = captured.find((x) => x.name === name);
  assert.ok(c, `${name} is captured`);
  return c.json.events as Array<Record<string, unknown>>;
}

const localActivities = (name: string) =>
  eventsOf(name).filter(
    (e) => (e.markerRecordedEventAttributes as { markerName?: string } | undefined)?.markerName === 'core_local_activity',
  ).length;

const scheduledTypes = (name: string) =>
  eventsOf(name).flatMap((e) => {
    const a = e.activityTaskScheduledEventAttributes as { activityType?: { name?: string } } | undefined;
    return a?.activityType?.name ? [a.activityType.name] : [];
  });

test('a v6 send records `sent` in its own step: no local activity after the reply left, where a v5 run had one', () => {
  assert.equal(localActivities('v5-approve-sent'), 1, 'v5: the workflow wrote `sent` in a local activity');
  assert.equal(localActivities('v6-approve-sent'), 0, 'v6: every status of the happy path was written by the step that reached it');
});

test("a v7 decision is recorded in the Update's workflow task: a local activity where a v6 run scheduled an activity task", () => {
  assert.deepEqual(scheduledTypes('v6-approve-sent'), ['ingestEmail', 'draftReply', 'recordDecision', 'sendReply']);
  assert.deepEqual(scheduledTypes('v7-approve-sent'), ['ingestEmail', 'draftReply', 'sendReply']);
  assert.equal(localActivities('v7-approve-sent'), 1, 'v7: the decision, in the task that accepted the Update');
  const tasks = (name: string) => eventsOf(name).filter((e) => 'workflowTaskCompletedEventAttributes' in e).length;
  assert.equal(tasks('v6-approve-sent') - tasks('v7-approve-sent'), 1, 'one workflow task less per approved reply');
});

test('a v8 intake runs in the first workflow task: a local activity where a v7 run scheduled an activity task', () => {
  assert.deepEqual(scheduledTypes('v8-approve-sent'), ['draftReply', 'sendReply']);
  assert.equal(localActivities('v8-approve-sent'), 2, "v8: the intake in the first task, the decision in the Update's");
  const tasks = (name: string) => eventsOf(name).filter((e) => 'workflowTaskCompletedEventAttributes' in e).length;
  assert.equal(tasks('v7-approve-sent') - tasks('v8-approve-sent'), 1, 'one workflow task less per email');
  const events = (name: string) => eventsOf(name).length;
  assert.ok(events('v8-approve-sent') < events('v7-approve-sent'), 'a shorter history');
});

test('every captured history replays with the current workflow code', async () => {
  const failures = await replay(captured.map(load));
  assert.deepEqual(
    [...failures].map(([name, error]) => `${name}: ${error}`),
    [],
    'histories recorded by earlier workflow code no longer replay: guard the change with patched()',
  );
});

test('a history that no longer matches the code is reported, with its scenario name', async () => {
  const source = captured.find((c) => c.name === 'approve-sent');
  assert.ok(source, 'approve-sent.json is captured');
  // As if the workflow had renamed an activity: the history scheduled parseEmail, the code does not.
  const renamed = structuredClone(source.json);
  for (const e of renamed.events) {
    const attrs = e.activityTaskScheduledEventAttributes as { activityType?: { name?: string } } | undefined;
    if (attrs?.activityType?.name === 'parseEmail') attrs.activityType.name = 'parseMessage';
  }
  // As if the code had changed what a decision does: the history's approve is now a reject.
  const decided = structuredClone(source.json);
  for (const e of decided.events) {
    const attrs = e.workflowExecutionSignaledEventAttributes as { signalName?: string; input?: unknown } | undefined;
    if (attrs?.signalName === 'approve') {
      attrs.signalName = 'reject';
    }
  }
  const failures = await replay([
    { name: 'activity-renamed', workflowId: 'replay-activity-renamed', history: historyFromJson(renamed) },
    { name: 'decision-changed', workflowId: 'replay-decision-changed', history: historyFromJson(decided) },
    load(source),
  ]);
  assert.match(failures.get('activity-renamed') ?? '', /DeterminismViolationError.*parse/s);
  assert.match(failures.get('decision-changed') ?? '', /DeterminismViolationError/);
  assert.equal(failures.get('approve-sent'), undefined, 'the unaltered history still replays in the same run');
});

test('a v2 history whose decision or send step no longer matches the code is reported', async () => {
  const source = captured.find((c) => c.name === 'v2-approve-sent');
  assert.ok(source, 'v2-approve-sent.json is captured');
  // As if the send phase had renamed its activity.
  const renamed = structuredClone(source.json);
  for (const e of renamed.events) {
    const attrs = e.activityTaskScheduledEventAttributes as { activityType?: { name?: string } } | undefined;
    if (attrs?.activityType?.name === 'sendReply') attrs.activityType.name = 'sendMessage';
  }
  // As if the approve Update now did what reject does.
  const decided = structuredClone(source.json);
  for (const e of decided.events) {
    const attrs = e.workflowExecutionUpdateAcceptedEventAttributes as { acceptedRequest?: { input?: { name?: string } } } | undefined;
    const input = attrs?.acceptedRequest?.input;
    if (input?.name === 'approve') input.name = 'reject';
  }
  const failures = await replay([
    { name: 'v2-activity-renamed', workflowId: 'replay-v2-activity-renamed', history: historyFromJson(renamed) },
    { name: 'v2-decision-changed', workflowId: 'replay-v2-decision-changed', history: historyFromJson(decided) },
    load(source),
  ]);
  assert.match(failures.get('v2-activity-renamed') ?? '', /DeterminismViolationError.*send/s);
  assert.match(failures.get('v2-decision-changed') ?? '', /DeterminismViolationError/);
  assert.equal(failures.get('v2-approve-sent'), undefined, 'the unaltered history still replays in the same run');
});
