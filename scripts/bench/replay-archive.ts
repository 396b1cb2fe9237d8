/**
 * Replay benchmark: a replay of a real archive (an mbox, Maildir or .eml folder) on a Temporal dev
 * server, MariaDB and the real embedder, with the replay's real activities and workflow. Reports
 * the pairing, the run time and pairs per second, a crash-resume (the workers stop when a third
 * of the pairs is done and new ones start 5 s later; drafts per pair must stay 1), and the report.
 * With --model, drafts come from the real small model (llama-server with SmolLM2-135M,
 * `npm run setup:llm`) and a live-like draft to the same model server is timed idle and during the
 * replay; without it, from the offline drafter.
 *
 *   node --import tsx scripts/bench/replay-archive.ts <archive> --team ADDRESS [--team …] [--limit N]
 *        [--knowledge DIR] [--model] [--context-chars N]   (LLM_CONTEXT_CHARS of the drafts; a small model on a few cores needs less)
 *        [--examples N]   (DRAFT_EXAMPLES of the drafts, default 0: run it with 0 and with 2 to measure whether examples help)
 *        [--llm-url URL --llm-model NAME]   (instead of --model: a model server already running, OpenAI-compatible)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { DraftRequest, Drafter } from '../../src/drafting/drafter.port';
import { createOpenAiDrafter } from '../../src/drafting/drafter.openai';
import { DEFAULT_EXAMPLE_CHARS } from '../../src/drafting/drafting.config';
import { createMariaDbAuditLog } from '../../src/platform/audit-log.mariadb';
import { formatReplayReport } from '../../src/replay/replay-format';
import { buildReplayReport } from '../../src/replay/replay-report';
import { prepareReplay } from '../../src/replay/replay-run';
import { createTemporalReplayStarter } from '../../src/replay/replay-starter.temporal';
import { createMariaDbReplayStore } from '../../src/replay/replay-store.mariadb';
import { REPLAY_QUEUE_SUFFIX } from '../../src/replay/replay.contract';
import { createOpenAiEmbedder } from '../../src/retrieval/embedder.openai';
import { readKnowledgeFolder } from '../../src/retrieval/knowledge-folder.file';
import { createTestDatabase } from '../../test/support/database';
import { countingDrafter, replayActivities, replayDeps } from '../../test/support/replay-harness';
import { startEmbedder } from '../../test/support/services/embedder';
import { startLlamaServer } from '../../test/support/services/llama-server';
import { startTemporalDevServer } from '../../test/support/services/temporal-dev-server';
import { workflowBundle } from '../../test/support/workflow-bundle';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    team: { type: 'string', multiple: true },
    limit: { type: 'string' },
    knowledge: { type: 'string' },
    model: { type: 'boolean', default: false },
    'context-chars': { type: 'string' },
    examples: { type: 'string', default: '0' },
    'llm-url': { type: 'string' },
    'llm-model': { type: 'string' },
  },
});
const archive = positionals[0];
if (!archive || !values.team?.length)
  throw new Error('usage: replay-archive.ts <archive> --team ADDRESS [--limit N] [--knowledge DIR] [--model]');
const QUEUE = 'replay-bench';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** The model drafter, counting its drafts per pair, and a live-like draft to the same server. */
function modelDrafter(baseUrl: string, model: string) {
  const inner = createOpenAiDrafter({ baseUrl, apiKey: 'not-needed', model, timeoutMs: 180_000 });
  const drafts = new Map<string, number>();
  const drafter: Drafter & { drafts: Map<string, number> } = {
    name: inner.name,
    drafts,
    draft: (req: DraftRequest) => {
      drafts.set(req.emailId, (drafts.get(req.emailId) ?? 0) + 1);
      return inner.draft(req);
    },
  };
  const live = async (n: number): Promise<number> => {
    const t = Date.now();
    await inner.draft({
      emailId: `live-${n}`,
      from: { name: 'Customer', address: 'customer@example.test' },
      subject: 'Invoice charged twice',
      text: 'Hello, my card was charged twice for invoice 4711. Please refund the second charge.',
      context: [{ sourceId: 'knowledge:billing.md#0', kind: 'knowledge', text: 'Double charges are refunded within 5 business days.' }],
      language: 'en',
    });
    return Date.now() - t;
  };
  return { drafter, live };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'replay-bench-'));
  const db = await createTestDatabase('replaybench');
  const embedder = await startEmbedder();
  const temporal = await startTemporalDevServer({ dataDir: path.join(dir, 'temporal'), headless: true });
  const llm = values.model ? await startLlamaServer({ dir }) : undefined;
  const connection = await Connection.connect({ address: temporal.address });
  try {
    const store = createMariaDbReplayStore(db.pool);
    let t0 = Date.now();
    const limit = values.limit ? Number(values.limit) : undefined;
    const prepared = await prepareReplay(
      { store, audit: createMariaDbAuditLog(db.pool) },
      { archive: archive!, mailboxId: 'default', team: values.team!, maxBytes: 25 * 1024 * 1024, by: 'bench', ...(limit ? { limit } : {}) },
    );
    console.log(`pairing: ${JSON.stringify(prepared)} in ${Date.now() - t0} ms`);
    const external = values['llm-url'] ? { baseUrl: values['llm-url'], model: values['llm-model'] ?? 'default' } : undefined;
    const served = llm ?? external;
    const model = served ? modelDrafter(served.baseUrl, served.model) : undefined;
    const drafter = model?.drafter ?? countingDrafter();
    const knowledgeDir = values.knowledge;
    const base = replayDeps(db.pool, embedder, drafter);
    const contextChars = values['context-chars'] ? Number(values['context-chars']) : undefined;
    const deps = {
      ...base,
      ranking: { ...base.ranking, ...(contextChars ? { contextChars } : {}) },
      mailboxLanguage: () => undefined,
      knowledgeFiles: () => (knowledgeDir ? readKnowledgeFolder(knowledgeDir).files : []),
      // The run's earlier replies as examples (src/replay/replay-examples.ts); the offline drafter ignores them.
      examples: { count: Number(values.examples), maxChars: DEFAULT_EXAMPLE_CHARS },
    };
    const activities = replayActivities(deps);
    const bundle = await workflowBundle();
    const startWorkers = async () => {
      const native = await NativeConnection.connect({ address: temporal.address });
      const main = await Worker.create({ connection: native, taskQueue: QUEUE, workflowBundle: bundle, activities });
      const drafting = await Worker.create({
        connection: native,
        taskQueue: `${QUEUE}${REPLAY_QUEUE_SUFFIX}`,
        activities,
        maxConcurrentActivityTaskExecutions: 1,
      });
      const running = Promise.all([main.run(), drafting.run()]);
      return async () => {
        main.shutdown();
        drafting.shutdown();
        await running;
        await native.close();
      };
    };
    const idle: number[] = [];
    if (model) for (let i = 0; i < 3; i++) idle.push(await model.live(i));
    const starter = createTemporalReplayStarter(new Client({ connection }), QUEUE);
    let stop = await startWorkers();
    t0 = Date.now();
    await starter.start({ runId: prepared.runId, total: prepared.pairs, batchSize: 10, inFlight: 1, pauseMs: 1000, pairsPerRun: 200 });
    const during: number[] = [];
    const sampling = model
      ? (async () => {
          for (let i = 0; i < 3; i++) {
            await sleep(5000);
            // A live draft that times out behind the replay's (one model slot) is a finding, not a crash.
            during.push(await model.live(100 + i).catch(() => Number.NaN));
          }
        })()
      : Promise.resolve();
    while (((await store.run(prepared.runId))?.done ?? 0) < Math.floor(prepared.pairs / 3)) await sleep(200);
    await stop();
    const atStop = (await store.run(prepared.runId))?.done;
    await sleep(5000);
    stop = await startWorkers();
    const result = await starter.result(prepared.runId);
    const ms = Date.now() - t0;
    await sampling;
    await stop();
    const counts = [...drafter.drafts.values()];
    console.log(
      `run: ${result.done} pairs (${result.failed} failed) in ${(ms / 1000).toFixed(1)} s, ${(result.done / (ms / 1000)).toFixed(2)} pairs/s; ` +
        `workers stopped at ${atStop} done and restarted after 5 s: ${counts.length} pairs drafted, at most ${Math.max(...counts)} draft(s) per pair`,
    );
    if (model)
      console.log(
        `live-like draft, p50 of ${idle.length}: idle ${median(idle)} ms, during the replay ${median(during)} ms (${during.join(', ')})`,
      );
    const reportEmbedder = createOpenAiEmbedder({
      baseUrl: embedder.baseUrl,
      apiKey: 'not-needed',
      model: embedder.model,
      timeoutMs: 30_000,
      inputType: embedder.inputType,
    });
    const run = (await store.run(prepared.runId))!;
    console.log(
      formatReplayReport(
        await buildReplayReport(run, await store.reportRows(prepared.runId), { policy: null, policyLabel: null, embedder: reportEmbedder }),
      ),
    );
  } finally {
    await connection.close();
    await llm?.stop();
    await temporal.stop();
    await embedder.stop();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
