/**
 * ReplayWorkflow on a real Temporal dev server with the real activities (MariaDB, the real
 * embedder, the fixture archive, the offline drafter): the worker is stopped after its third draft
 * and a new one takes over; every pair ends with exactly one draft, the run continued as new after
 * each batch, the progress query and the run row agree, and no other workflow was started.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createTemporalReplayStarter, replayWorkflowId } from '../../src/replay/replay-starter.temporal';
import { REPLAY_QUEUE_SUFFIX, REPLAY_WORKFLOW } from '../../src/replay/replay.contract';
import { createTestDatabase } from '../support/database';
import { startEmbedder, type EmbedderServer } from '../support/services/embedder';
import { startTemporalDevServer, type TemporalDevServer } from '../support/services/temporal-dev-server';
import { countingDrafter, prepareFixtureRun, replayActivities, replayDeps } from '../support/replay-harness';
import { workflowBundle } from '../support/workflow-bundle';

let dir: string;
let temporal: TemporalDevServer;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let embedder: EmbedderServer;
let connection: Connection;
let client: Client;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-replay-'));
  db = await createTestDatabase('replaywf');
  embedder = await startEmbedder();
  temporal = await startTemporalDevServer({ dataDir: path.join(dir, 'temporal'), headless: true });
  connection = await Connection.connect({ address: temporal.address });
  client = new Client({ connection });
});
after(async () => {
  await connection?.close();
  await temporal?.stop();
  await embedder?.stop();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const TASK_QUEUE = 'replay-test';

/** The main queue (workflow and bookkeeping) and the replay queue (drafting), as the worker process runs them. */
async function startWorkers(activities: ReturnType<typeof replayActivities>) {
  const native = await NativeConnection.connect({ address: temporal.address });
  const main = await Worker.create({ connection: native, taskQueue: TASK_QUEUE, workflowBundle: await workflowBundle(), activities });
  const replay = await Worker.create({
    connection: native,
    taskQueue: `${TASK_QUEUE}${REPLAY_QUEUE_SUFFIX}`,
    activities,
    maxConcurrentActivityTaskExecutions: 2,
  });
  const running = Promise.all([main.run(), replay.run()]);
  return {
    async stop() {
      for (const w of [main, replay]) if (w.getState() === 'RUNNING') w.shutdown();
      await running;
      await native.close();
    },
  };
}

test('a replay resumes on a new worker without drafting a finished pair again', async () => {
  const prepared = await prepareFixtureRun(db.pool);
  const drafter = countingDrafter();
  const deps = replayDeps(db.pool, embedder, drafter);
  const activities = replayActivities(deps);
  let stopFirst: () => void = () => undefined;
  const firstStopped = new Promise<void>((resolve) => (stopFirst = resolve));
  // The first worker goes away right after its third draft, with the run half done.
  const draft = drafter.draft.bind(drafter);
  drafter.draft = async (req) => {
    const result = await draft(req);
    if (drafter.requests.length === 3) stopFirst();
    return result;
  };
  const first = await startWorkers(activities);
  const starter = createTemporalReplayStarter(client, TASK_QUEUE);
  await starter.start({ runId: prepared.runId, total: prepared.pairs, batchSize: 3, inFlight: 2, pauseMs: 10, pairsPerRun: 3 });
  await firstStopped;
  await first.stop();
  const between = await deps.store.run(prepared.runId);
  assert.ok(between && between.done >= 3 && between.done < 8, `done after the first worker: ${between?.done}`);
  const second = await startWorkers(activities);
  try {
    const progress = await starter.progress(prepared.runId);
    assert.ok(progress === null || progress.total === 8, JSON.stringify(progress));
    const result = await starter.result(prepared.runId);
    assert.equal(result.finished, true);
    assert.equal(result.failed, 0);
    assert.equal(result.done, 8);
  } finally {
    await second.stop();
  }
  const run = await deps.store.run(prepared.runId);
  assert.deepEqual([run?.status, run?.done, run?.total, run?.failed], ['finished', 8, 8, 0]);
  assert.equal(drafter.drafts.size, 8);
  assert.deepEqual([...new Set(drafter.drafts.values())], [1], 'drafts per pair');
  // Continued as new after each batch: several runs of the one workflow id, and no other workflow.
  const executions = [];
  for await (const wf of client.workflow.list({ query: `WorkflowType = '${REPLAY_WORKFLOW.type}'` })) executions.push(wf);
  assert.ok(executions.length >= 3, `runs: ${executions.length}`);
  assert.ok(executions.every((e) => e.workflowId === replayWorkflowId(prepared.runId)));
  let all = 0;
  for await (const wf of client.workflow.list()) all += wf.workflowId === replayWorkflowId(prepared.runId) ? 0 : 1;
  assert.equal(all, 0, 'no other workflow (no email workflow) was started');
  const emails = (await db.pool.query('SELECT COUNT(*) AS n FROM emails')) as Array<{ n: bigint }>;
  assert.equal(Number(emails[0]!.n), 0);
});
