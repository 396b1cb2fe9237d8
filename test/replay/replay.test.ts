/**
 * Replay: the histories a release's workers wrote (recorded by test/replay/capture-histories.ts
 * on real servers, one folder per release under histories/) must replay with the workflow code
 * of today. Emails wait days for approval, so a deployment meets histories written by the
 * released code; a change that breaks them fails here with a DeterminismViolationError naming
 * the history, instead of stranding those emails. See docs/changing-workflows.md.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { before, test } from 'node:test';
import type { History } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { DECISIONS } from '../../src/email/email.contract';
import { historyFromJson } from './capture/history-json';
import { workflowBundle } from '../support/workflow-bundle';

const HISTORIES = path.join(__dirname, 'histories');
/**
 * The release whose histories production workers may hold (the newest folder): every later change
 * must replay them. Older folders stay only while a patch's old branch needs them.
 */
const RELEASED = readdirSync(HISTORIES)
  .filter((d) => /^\d+\.\d+$/.test(d))
  .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
  .at(-1)!;
/** The paths the captured set must keep covering; a lost file must not pass silently. */
const REQUIRED = [
  'approve-sent',
  'approve-edited-sent',
  'reject',
  'redraft-then-approve',
  'manual-review-approve-body',
  'send-failed-round-resend',
  'send-in-doubt-force',
  'send-in-doubt-mark-sent',
  'refused-decisions',
  'thread-follow-up',
  'triaged-ignored',
  'waiting-for-approval',
  'history-only',
  'parse-failed',
  'reset-after-sent',
  'poll-waits-for-backlog',
  'watch-wakes-poll',
  'watch-mailbox-removed',
  'case-reply-lead',
  'case-reply-covered',
  'case-waits-for-customer',
  'retention-purge',
];

interface Captured {
  release: string;
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
  captured = readdirSync(HISTORIES, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => {
      const dir = path.join(HISTORIES, d.name);
      const manifestFile = path.join(dir, 'manifest.json');
      const manifest = (existsSync(manifestFile) ? JSON.parse(readFileSync(manifestFile, 'utf8')) : {}) as Record<
        string,
        { workflowId: string }
      >;
      return readdirSync(dir)
        .filter((f) => f.endsWith('.json') && f !== 'manifest.json')
        .sort()
        .map((f) => {
          const name = f.replace(/\.json$/, '');
          // Replays run under the original workflow id, in case the workflow ever reads it.
          const workflowId = manifest[name]?.workflowId ?? `replay-${d.name}-${name}`;
          const json = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as Captured['json'];
          return { release: d.name, name, workflowId, json };
        });
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

const released = () => captured.filter((c) => c.release === RELEASED);

test(`the ${RELEASED} histories cover every path of the email, poll, watch and case workflows`, () => {
  const names = released().map((c) => c.name);
  assert.deepEqual(
    REQUIRED.filter((r) => !names.includes(r)),
    [],
    `missing histories: run test/replay/capture-histories.ts with the ${RELEASED} workflow code`,
  );
  const last = released()
    .find((c) => c.name === 'waiting-for-approval')
    ?.json.events.at(-1);
  assert.ok(last && !('workflowExecutionCompletedEventAttributes' in last), 'waiting-for-approval is an open (partial) history');
  // Every decision reached the released code as an Update in some history.
  const updates = new Set(released().flatMap(updatesOf));
  assert.deepEqual(
    Object.values(DECISIONS).filter((d) => !updates.has(d)),
    [],
    'decisions never captured as an Update',
  );
});

test('one workflow generation: the released histories recorded no patch marker', () => {
  for (const c of released()) assert.deepEqual(patchesOf(c), [], `${c.name} took a patched() branch`);
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

/** The events of one released history. */
function eventsOf(name: string): Array<Record<string, unknown>> {
  const c = released().find((x) => x.name === name);
  assert.ok(c, `${name} is captured`);
  return c.json.events as Array<Record<string, unknown>>;
}

test("an approved reply takes two activity tasks: the intake runs in the first workflow task, the decision in the Update's", () => {
  const events = eventsOf('approve-sent');
  const scheduled = events.flatMap((e) => {
    const a = e.activityTaskScheduledEventAttributes as { activityType?: { name?: string } } | undefined;
    return a?.activityType?.name ? [a.activityType.name] : [];
  });
  assert.deepEqual(scheduled, ['draftReply', 'sendReply']);
  const localActivities = events.filter(
    (e) => (e.markerRecordedEventAttributes as { markerName?: string } | undefined)?.markerName === 'core_local_activity',
  ).length;
  assert.equal(localActivities, 2, "the intake in the first task, the decision in the Update's");
});

test('every captured history replays with the current workflow code', async () => {
  const failures = await replay(captured.map(load));
  assert.deepEqual(
    [...failures].map(([name, error]) => `${name}: ${error}`),
    [],
    'released histories no longer replay: see docs/changing-workflows.md for how to ship a change that breaks them',
  );
});

test('a history that no longer matches the code is reported, with its scenario name', async () => {
  const source = released().find((c) => c.name === 'approve-sent');
  assert.ok(source, 'approve-sent.json is captured');
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
    { name: 'activity-renamed', workflowId: 'replay-activity-renamed', history: historyFromJson(renamed) },
    { name: 'decision-changed', workflowId: 'replay-decision-changed', history: historyFromJson(decided) },
    load(source),
  ]);
  assert.match(failures.get('activity-renamed') ?? '', /DeterminismViolationError.*send/s);
  assert.match(failures.get('decision-changed') ?? '', /DeterminismViolationError/);
  assert.equal(failures.get('approve-sent'), undefined, 'the unaltered history still replays in the same run');
});
