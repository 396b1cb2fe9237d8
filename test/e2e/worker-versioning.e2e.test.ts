/**
 * Worker Deployment Versioning, end to end on a real Temporal dev server: a run that waits for a
 * person's decision (like an email waiting for approval) is pinned to the build that started it.
 * Build 1.1, whose workflow issues other commands, becomes current while the run waits; the
 * decision then reaches the run on build 1.0's worker and it finishes there, while a new run
 * starts on 1.1. The same swap between unversioned workers stops the waiting run with a
 * nondeterminism error, and the replay check (what test/replay does with the last release's
 * histories) names the history that 1.1 cannot replay. The operator steps of
 * docs/changing-workflows.md are run with the real CLI: set-current-version, the drainage status,
 * the count of open runs on a version, moving runs to a compatible build, and the first
 * versioned deployment taking over runs of unversioned workers.
 *
 * The workflows are test-only modules (test/fixtures/versioning/): the point is the mechanism;
 * the worker options come from the product (workers/worker-deployment.ts).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startTemporalDevServer, type TemporalDevServer } from '../support/services/temporal-dev-server';
import { temporalCliPath } from '../support/services/tool-paths';
import { workerDeploymentOptions } from '../../workers/worker-deployment';
import * as productWorkflows from '../../workflows';
import { decideSignal, WORKFLOW_TYPE, type ApprovalActivities } from '../fixtures/versioning/approval-contract';
import { waitFor } from '../support/wait';
import { workflowBundle } from '../support/workflow-bundle';
import { WORKFLOW_TYPES } from '../../src/platform/contract';
import type { Activities } from '../../activities';

const run = promisify(execFile);
const DEPLOYMENT = 'approval-test';
/** Workflow code per build: 1.2 is a rebuild of 1.1, same workflow. */
const CODE = { '1.0': '1-0', '1.1': '1-1', '1.2': '1-1' } as const;
type Build = keyof typeof CODE;

let dataDir: string;
let server: TemporalDevServer;
let connection: Connection;
let client: Client;
const bundles = {} as Record<(typeof CODE)[Build], { code: string }>;
const running: RunningBuild[] = [];

before(async () => {
  // The SDK's info lines (worker states, webpack) would bury the test's output.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  dataDir = mkdtempSync(path.join(tmpdir(), 'worker-versioning-'));
  server = await startTemporalDevServer({
    dataDir,
    headless: true,
    // The server checks a version's open runs every few minutes, after a grace period for
    // visibility to catch up; seconds keep the drainage steps below short.
    extraArgs: [
      ...['--dynamic-config-value', 'matching.wv.VersionDrainageStatusVisibilityGracePeriod="1s"'],
      ...['--dynamic-config-value', 'matching.wv.VersionDrainageStatusRefreshInterval="1s"'],
    ],
  });
  connection = await Connection.connect({ address: server.address });
  client = new Client({ connection, namespace: server.namespace });
  for (const code of ['1-0', '1-1'] as const) {
    bundles[code] = await bundleWorkflowCode({ workflowsPath: require.resolve(`../fixtures/versioning/approval-release-${code}`) });
  }
});

after(async () => {
  for (const b of running.splice(0)) await b.stop();
  await connection?.close();
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

interface RunningBuild {
  /** The workers' connection: a client on it can ask for eager starts, as the product's poll does. */
  connection: NativeConnection;
  stop(): Promise<void>;
}

/**
 * One build's worker process as the product runs it: the workflows on `taskQueue`, the activities
 * on a queue of their own, both with the same version when `versioned`. No workflow cache: every
 * task replays the whole history on whichever worker the server hands it to, so nothing cached
 * can hide a task routed to the wrong build.
 */
async function startBuild(build: Build, taskQueue: string, deploymentName: string | null): Promise<RunningBuild> {
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const deployment = workerDeploymentOptions(deploymentName ? { name: deploymentName, buildId: build } : undefined);
  const common = {
    connection: nativeConnection,
    namespace: server.namespace,
    identity: deploymentName ? `build ${build}` : `build ${build} unversioned`,
    ...(deployment ? { workerDeploymentOptions: deployment } : {}),
  };
  const activities: ApprovalActivities = {
    draft: async () => `draft by ${build}`,
    triage: async () => `triage by ${build}`,
  };
  const workers = [
    await Worker.create({ ...common, taskQueue, workflowBundle: bundles[CODE[build]], maxCachedWorkflows: 0 }),
    await Worker.create({ ...common, taskQueue: `${taskQueue}-activities`, activities }),
  ];
  const done = Promise.all(workers.map((w) => w.run()));
  const handle: RunningBuild = {
    connection: nativeConnection,
    async stop() {
      running.splice(running.indexOf(handle), 1);
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await done;
      await nativeConnection.close();
    },
  };
  running.push(handle);
  return handle;
}

/** What an operator runs to switch builds; retried until the version's pollers have reached the server. */
async function setCurrentVersion(build: Build, deployment = DEPLOYMENT): Promise<void> {
  await waitFor(`${deployment}/${build} to become current`, async () => {
    await run(temporalCliPath(), [
      ...['worker', 'deployment', 'set-current-version', '--yes'],
      ...['--address', server.address, '--namespace', server.namespace],
      ...['--deployment-name', deployment, '--build-id', build],
    ]);
    return true;
  });
}

/** `draining` while runs pinned to a no longer current version are open, `drained` once they are all closed. */
async function drainageStatus(build: Build, deployment = DEPLOYMENT): Promise<string | undefined> {
  const { stdout } = await run(temporalCliPath(), [
    ...['worker', 'deployment', 'describe-version', '--output', 'json'],
    ...['--address', server.address, '--namespace', server.namespace],
    ...['--deployment-name', deployment, '--build-id', build],
  ]);
  return (JSON.parse(stdout) as { drainageInfo?: { drainageStatus?: string } }).drainageInfo?.drainageStatus;
}

/** Open runs on a version, counted as an operator would (the server's own search attribute). */
async function pinnedOpenRuns(build: Build, deployment = DEPLOYMENT): Promise<number> {
  const { stdout } = await run(temporalCliPath(), [
    ...['workflow', 'count', '--output', 'json'],
    ...['--address', server.address, '--namespace', server.namespace],
    ...['--query', `TemporalWorkerDeploymentVersion="${deployment}:${build}" AND ExecutionStatus="Running"`],
  ]);
  return Number((JSON.parse(stdout) as { count?: string | number }).count ?? 0);
}

async function events(handle: WorkflowHandle): Promise<temporal.api.history.v1.IHistoryEvent[]> {
  return (await handle.fetchHistory()).events ?? [];
}

/** The run has drafted (`activities` activities done) and its workflow task after that is complete: it waits for the decision. */
async function waitUntilWaiting(handle: WorkflowHandle, activities: number): Promise<void> {
  await waitFor(`${handle.workflowId} waiting for its decision`, async () => {
    const history = await events(handle);
    const completed = history.filter((e) => e.activityTaskCompletedEventAttributes).length;
    return completed === activities && history.at(-1)?.workflowTaskCompletedEventAttributes != null;
  });
}

/** Which worker identities took the run's workflow and activity tasks. */
async function identities(handle: WorkflowHandle): Promise<string[]> {
  const history = await events(handle);
  const ids = history.map((e) => e.workflowTaskStartedEventAttributes?.identity ?? e.activityTaskStartedEventAttributes?.identity);
  return [...new Set(ids.filter((id): id is string => Boolean(id)))];
}

async function versioning(handle: WorkflowHandle): Promise<{ behavior: unknown; buildId: unknown }> {
  const info = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
  return { behavior: info?.behavior, buildId: info?.deploymentVersion?.buildId };
}

const PINNED = temporal.api.enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_PINNED;

test('pinned: a waiting run finishes on the build that started it after 1.1 became current; a new run starts on 1.1', async () => {
  const taskQueue = 'approval-versioned';
  const v10 = await startBuild('1.0', taskQueue, DEPLOYMENT);
  await setCurrentVersion('1.0');
  const old = await client.workflow.start(WORKFLOW_TYPE, { taskQueue, workflowId: 'pinned-old', args: ['invoice question'] });
  await waitUntilWaiting(old, 1);

  // The deployment of 1.1: its worker starts beside 1.0's, then becomes current.
  await startBuild('1.1', taskQueue, DEPLOYMENT);
  await setCurrentVersion('1.1');
  const fresh = await client.workflow.start(WORKFLOW_TYPE, { taskQueue, workflowId: 'pinned-new', args: ['delivery date'] });
  await waitUntilWaiting(fresh, 2);
  // The poll starts emails from an activity, on the worker's connection. An eager start (the first
  // task comes back with the start response) from 1.0's worker after the switch lands on 1.0.
  const eagerClient = new Client({ connection: v10.connection, namespace: server.namespace });
  const eager = await eagerClient.workflow.start(WORKFLOW_TYPE, {
    taskQueue,
    workflowId: 'pinned-eager',
    args: ['eager start'],
    requestEagerStart: true,
  });
  await waitUntilWaiting(eager, 1);
  assert.deepEqual(
    await versioning(eager),
    { behavior: PINNED, buildId: '1.0' },
    'an eager start is pinned to the asking worker: the reason versioned workers start emails without it (workers/email-worker.ts)',
  );
  await eager.terminate('test over');
  // Without it, a start from the same worker's connection goes to the current version.
  const routed = await eagerClient.workflow.start(WORKFLOW_TYPE, { taskQueue, workflowId: 'pinned-routed', args: ['routed start'] });
  await waitUntilWaiting(routed, 2);
  assert.deepEqual(await identities(routed), ['build 1.1']);
  await routed.terminate('test over');

  // 1.0 is no longer current but has a run pinned to it: its workers must keep running.
  await waitFor('1.0 draining', async () => (await drainageStatus('1.0')) === 'draining');
  // Which runs keep it: the query in docs/changing-workflows.md.
  await waitFor('the open run pinned to 1.0 in visibility', async () => (await pinnedOpenRuns('1.0')) === 1);

  // The decision on the old run comes after the switch: it is still 1.0's run.
  await old.signal(decideSignal, 'approved');
  await fresh.signal(decideSignal, 'approved');
  assert.equal(await old.result(), 'workflow 1.0: draft by 1.0, approved');
  assert.equal(await fresh.result(), 'workflow 1.1: triage by 1.1, draft by 1.1, approved');
  assert.deepEqual(await identities(old), ['build 1.0'], 'only 1.0 worked on the old run, activities included');
  assert.deepEqual(await identities(fresh), ['build 1.1']);
  assert.deepEqual(await versioning(old), { behavior: PINNED, buildId: '1.0' });
  assert.deepEqual(await versioning(fresh), { behavior: PINNED, buildId: '1.1' });
  // Its last pinned run closed: 1.0's workers may be retired.
  await waitFor('1.0 drained', async () => (await drainageStatus('1.0')) === 'drained');

  // What the replay test would have said about 1.1 without versioning: 1.0's history does not replay.
  const history = await old.fetchHistory();
  await Worker.runReplayHistory({ workflowBundle: bundles['1-0'] }, history, old.workflowId);
  await assert.rejects(Worker.runReplayHistory({ workflowBundle: bundles['1-1'] }, history, old.workflowId), {
    name: 'DeterminismViolationError',
  });
});

test('the mailbox watcher, pinned like every run, starts its next session on the new current build (the old one drains)', async () => {
  const taskQueue = 'watch-versioned';
  const deployment = 'watch-test';
  const bundle = await workflowBundle();
  /** Which build served each watch session. */
  const sessions: string[] = [];
  const startWatchBuild = async (build: Build): Promise<void> => {
    const nativeConnection = await NativeConnection.connect({ address: server.address });
    // The product's workflow code and worker options; the IMAP side is a stand-in that waits out the session.
    const activities: Pick<Activities, 'planWatch' | 'watchFolder'> = {
      planWatch: async () => ({ watch: true, folders: ['INBOX'] }),
      watchFolder: async ({ untilMs }) => {
        sessions.push(build);
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, untilMs - Date.now())));
        return { wakeups: 0 };
      },
    };
    const worker = await Worker.create({
      connection: nativeConnection,
      namespace: server.namespace,
      identity: `watch build ${build}`,
      workerDeploymentOptions: workerDeploymentOptions({ name: deployment, buildId: build }),
      taskQueue,
      workflowBundle: bundle,
      activities,
      maxCachedWorkflows: 0,
    });
    const done = worker.run();
    const handle: RunningBuild = {
      connection: nativeConnection,
      async stop() {
        running.splice(running.indexOf(handle), 1);
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await done;
        await nativeConnection.close();
      },
    };
    running.push(handle);
  };
  await startWatchBuild('1.0');
  await setCurrentVersion('1.0', deployment);
  const watcher = await client.workflow.start(WORKFLOW_TYPES.mailboxWatch, {
    taskQueue,
    workflowId: 'watch-support',
    args: [{ mailboxId: 'support', sessionSeconds: 3 }],
  });
  await waitFor('a session on 1.0', async () => sessions.includes('1.0') || undefined);
  assert.deepEqual(await versioning(watcher), { behavior: PINNED, buildId: '1.0' });

  await startWatchBuild('1.1');
  await setCurrentVersion('1.1', deployment);
  await waitFor('a session on 1.1', async () => sessions.includes('1.1') || undefined, 60_000);
  assert.equal((await versioning(client.workflow.getHandle('watch-support'))).buildId, '1.1');
  // Nothing is pinned to 1.0 any more: its workers may be retired.
  await waitFor('1.0 drained', async () => (await drainageStatus('1.0', deployment)) === 'drained', 120_000);
  await client.workflow.getHandle('watch-support').terminate('test over');
});

test('unversioned: the same swap stops the waiting run with a nondeterminism error', async () => {
  const taskQueue = 'approval-unversioned';
  const v10 = await startBuild('1.0', taskQueue, null);
  const handle = await client.workflow.start(WORKFLOW_TYPE, { taskQueue, workflowId: 'unversioned-old', args: ['invoice question'] });
  await waitUntilWaiting(handle, 1);

  // A deployment without versioning: 1.0's worker is replaced by 1.1's.
  await v10.stop();
  await startBuild('1.1', taskQueue, null);
  await handle.signal(decideSignal, 'approved');

  const failed = await waitFor(
    'the workflow task to fail',
    async () => (await events(handle)).find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes,
  );
  assert.ok(failed);
  assert.equal(failed.cause, temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR);
  assert.match(failed.failure?.message ?? '', /nondetermin/i);
  // Not lost, but stuck: the task is retried and fails again until a compatible worker serves it.
  assert.equal((await handle.describe()).status.name, 'RUNNING');
  await handle.terminate('test over');
});

test('a compatible build takes over the runs pinned to the previous one (update-options)', async () => {
  const taskQueue = 'approval-compatible';
  const deployment = 'approval-compatible';
  await startBuild('1.1', taskQueue, deployment);
  await setCurrentVersion('1.1', deployment);
  const handle = await client.workflow.start(WORKFLOW_TYPE, { taskQueue, workflowId: 'moved', args: ['invoice question'] });
  await waitUntilWaiting(handle, 2);

  // 1.2 replays 1.1's histories (here: the same workflow code), so 1.1 need not wait for its runs.
  await startBuild('1.2', taskQueue, deployment);
  await setCurrentVersion('1.2', deployment);
  const query = `TemporalWorkerDeploymentVersion="${deployment}:1.1" AND ExecutionStatus="Running"`;
  await waitFor('the run on 1.1 in visibility', async () => (await pinnedOpenRuns('1.1', deployment)) === 1);
  await run(temporalCliPath(), [
    ...['workflow', 'update-options', '--yes', '--reason', 'moved to 1.2'],
    ...['--address', server.address, '--namespace', server.namespace, '--query', query],
    ...['--versioning-override-behavior', 'pinned', '--versioning-override-deployment-name', deployment],
    ...['--versioning-override-build-id', '1.2'],
  ]);
  // A batch operation: done when the run carries the override.
  await waitFor(
    'the override on the run',
    async () => (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo?.versioningOverride?.pinned?.version?.buildId === '1.2',
  );
  await handle.signal(decideSignal, 'approved');
  assert.equal(await handle.result(), 'workflow 1.1: triage by 1.1, draft by 1.1, approved');
  assert.deepEqual(await identities(handle), ['build 1.1', 'build 1.2'], 'the decision was taken by 1.2');
});

test('the first versioned deployment: runs started on unversioned workers move to the current version', async () => {
  const taskQueue = 'approval-first-versioned';
  const deployment = 'approval-first';
  await startBuild('1.0', taskQueue, null);
  const handle = await client.workflow.start(WORKFLOW_TYPE, { taskQueue, workflowId: 'first-versioned', args: ['invoice question'] });
  await waitUntilWaiting(handle, 1);

  // The unversioned worker keeps polling, yet the decision goes to the current version: its code
  // must replay what the unversioned build recorded (here the same code, 1.0).
  await startBuild('1.0', taskQueue, deployment);
  await setCurrentVersion('1.0', deployment);
  await handle.signal(decideSignal, 'approved');
  assert.equal(await handle.result(), 'workflow 1.0: draft by 1.0, approved');
  assert.deepEqual(await identities(handle), ['build 1.0 unversioned', 'build 1.0']);
});

test('the product workflows declare no versioning behaviour of their own', () => {
  // The server refuses a workflow task completion that carries a versioning behaviour from an
  // unversioned worker ("versioning behavior cannot be specified without deployment options being
  // set with versioned mode"): one setWorkflowOptions({ versioningBehavior }) would stop every run
  // of that type on the default, unversioned installation. The behaviour comes from the worker
  // (workers/worker-deployment.ts), and only when it is versioned.
  for (const [name, fn] of Object.entries(productWorkflows as Record<string, unknown>)) {
    if (typeof fn !== 'function') continue;
    const options = (fn as { workflowDefinitionOptions?: unknown }).workflowDefinitionOptions;
    assert.equal(options, undefined, `${name} declares workflow definition options`);
  }
});
