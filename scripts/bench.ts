/**
 * Pipeline benchmark on the real stack (Temporal dev server, MariaDB, Dovecot, SMTP listener;
 * the LLM is the local test double, so figures measure the pipeline, not a model). The worker
 * runs as its own process (`email-rag worker`: compiled dist/ when built, else tsx) and is
 * sampled from /proc for memory and CPU; `--workers N` runs N of them on the same task queues.
 *
 *   npm run bench -- [--emails N] [--workers N] [--source imap|ingest] [--twin] [--json] [--from-source] [--no-approve] [--empty]
 *        a lived-in installation by default (scripts/bench/lived-in.ts: guidance, approved replies,
 *        open cases, 10,000 past emails, a knowledge folder; payload encryption on); --empty: none of it
 *   npm run bench -- --latency [--emails N] [--poll-interval S]   arrival → awaiting approval, IMAP IDLE vs. polling
 *        [--beside-replay ARCHIVE --team ADDRESS …]                 … and with IDLE again while a replay of ARCHIVE drafts
 *   npm run bench -- --queue [--emails N] [--requests N]   the review queue's pages with N emails waiting (default 10,000)
 *   npm run bench -- --attachments                               attachment text extraction, ms per MB of PDF and DOCX
 *   npm run bench -- --hostile                                   the tests' hostile inputs (ReDoS floods, 5 MB mail, deep HTML), ms per input
 *   npm run bench -- --features [--emails N] [--empty]           the cost of each default feature: one run with all on, one with each off
 *   (BENCH_EMAILS=N works too; default 100; WORKER_*, IMAP_POLL_BATCH_SIZE and BACKLOG_LIMIT reach
 *   the worker and the twin)
 */
import { STEPS } from '../src/platform/contract';
import { CASE_CLOCK } from '../src/cases/cases.contract';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { connectTemporalClient } from '../src/platform/temporal-connection';
import type { Client } from '@temporalio/client';
import { loadConfig } from '../src/config';
import { installSchedules, triggerPoll } from '../src/operations/schedules';
import { installWatchers } from '../src/mailboxes/watchers';
import { WATCHER_STATES } from '../src/mailboxes/mailboxes.contract';
import { startStack, type TestStack } from '../test/support/stack';
import { waitFor } from '../test/support/wait';
import { attributeFleetCpu } from './bench/cpu-attribution';
import {
  approveAll,
  probeArrivals,
  batchEmailIds,
  countStatus,
  firstDeadJob,
  intake,
  latencies,
  prepare,
  sendsDone,
  smtpCopies,
  stepRows,
  stepRuntimes,
  type Source,
} from './bench/pipeline';
import { historyShape, startSpread, treeCpu } from './bench/history-shape';
import { findProcess, processCpu } from './bench/proc-sampler';
import { printReport, type BenchReport } from './bench/report';
import { runTwin } from './bench/twin';
import { runLatencyBench } from './bench/idle-latency';
import { printQueueFigures, runQueueBench } from './bench/queue';
import { runAttachmentBench } from './bench/attachments';
import { runHostileBench } from './bench/hostile';
import { runFeatureTable } from './bench/feature-table';
import { livedInEnv, seedLivedIn } from './bench/lived-in';
import { startWorkerFleet, type WorkerFleet } from './bench/worker-fleet';
import { workerSpread } from './bench/worker-spread';
import { ensureCompiled } from './bench/compiled-worker';

const { values: opts } = parseArgs({
  options: {
    emails: { type: 'string' },
    // Worker processes (`email-rag worker`, same env and task queues) against the one stack.
    workers: { type: 'string', default: '1' },
    source: { type: 'string', default: 'imap' },
    twin: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    'from-source': { type: 'boolean', default: false },
    // Memory runs: stop with N waiting, without approving them.
    'no-approve': { type: 'boolean', default: false },
    // V8 CPU profiles of the workers (main and workflow threads), written to this folder when they stop.
    'cpu-prof': { type: 'string' },
    // Push intake: arrival → awaiting approval with the IDLE watcher, then with the schedule alone.
    latency: { type: 'boolean', default: false },
    'beside-replay': { type: 'string' },
    team: { type: 'string', multiple: true },
    'poll-interval': { type: 'string', default: '60' },
    // The review queue: page requests against the real inbox app with a large backlog (no pipeline).
    queue: { type: 'boolean', default: false },
    requests: { type: 'string', default: '50' },
    // Attachment text: the reader's time per MB of PDF and DOCX (no stack needed).
    attachments: { type: 'boolean', default: false },
    // The tests' hostile inputs, timed here because the tests bound them by counts (no stack needed).
    hostile: { type: 'boolean', default: false },
    // One run with the demo's configuration and one with each default feature off, each with its twin.
    features: { type: 'boolean', default: false },
    // The pipeline against an empty installation (the figures before 1.4); the default is lived-in.
    empty: { type: 'boolean', default: false },
    'lived-in': { type: 'boolean', default: false },
  },
});
const N = Number(opts.emails ?? process.env.BENCH_EMAILS ?? 100);
const source = opts.source as Source;
const W = Number(opts.workers);
if (!Number.isInteger(W) || W < 1) throw new Error(`--workers must be a positive integer, not ${opts.workers}`);
if (!Number.isInteger(N) || N < 1) throw new Error(`--emails must be a positive integer, not ${String(opts.emails)}`);
if (source !== 'imap' && source !== 'ingest') throw new Error(`--source is imap or ingest, not ${source}`);
if (opts.empty && opts['lived-in']) throw new Error('--empty and --lived-in exclude each other');
const livedIn = !opts.empty;
const log = (line: string) => (opts.json ? process.stderr : process.stdout).write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A progress line every 30 s with this process's heap: a long run shows how far it got and that
 * the bench itself holds nothing per email.
 */
const progress = (what: string) => {
  let last = Date.now();
  return (done: number, of: number): void => {
    if (Date.now() - last < 30_000) return;
    last = Date.now();
    log(`bench: ${done}/${of} ${what}, bench heap ${(process.memoryUsage().heapUsed / 1048576).toFixed(0)} MB`);
  };
};

/** Until `n` emails await approval; fails at once when an activity gave up, as that email never will. */
const awaiting = (stack: TestStack, n: number) => {
  const report = progress('awaiting approval');
  return async (): Promise<boolean> => {
    const dead = await firstDeadJob(stack);
    if (dead) throw new Error(`an activity gave up, so not all emails can reach approval: ${dead}`);
    const waiting = await countStatus(stack, 'awaiting_approval');
    report(waiting, n);
    return waiting >= n;
  };
};

/** The IMAP IDLE watcher of the bench's mailbox, started and idle (as `email-rag schedules install` leaves it). */
async function watching(client: Client, stack: TestStack): Promise<void> {
  await installWatchers(client, stack.config);
  await waitFor(
    'watcher idle',
    async () =>
      ((await stack.db.pool.query('SELECT 1 FROM mailbox_watchers WHERE state = ?', [WATCHER_STATES.idle])) as unknown[]).length > 0,
  );
}

async function main(): Promise<void> {
  if (opts.queue) {
    const waiting = Number(opts.emails ?? process.env.BENCH_EMAILS ?? 10_000);
    const requests = Number(opts.requests);
    if (!Number.isInteger(requests) || requests < 1) throw new Error(`--requests must be a positive integer, not ${opts.requests}`);
    log(`bench: the review queue with ${waiting} emails waiting, ${requests} requests per kind over HTTP (real inbox app, signed in)`);
    const { seedMs, figures } = await runQueueBench({ waiting, requests }, log);
    if (opts.json) process.stdout.write(`${JSON.stringify({ waiting, seedMs, figures }, null, 2)}\n`);
    else printQueueFigures(figures, log);
    return;
  }
  if (opts.features) {
    await runFeatureTable(N, log, livedIn ? [] : ['--empty']);
    return;
  }
  if (opts.hostile) {
    log('bench: the hostile inputs of the tests (test/support/hostile-inputs.ts): median ms of 3 runs, CPU ms per run');
    const figures = runHostileBench(log);
    if (opts.json) process.stdout.write(`${JSON.stringify({ hostile: figures }, null, 2)}\n`);
    return;
  }
  if (opts.attachments) {
    const figures = await runAttachmentBench(log);
    if (opts.json) process.stdout.write(`${JSON.stringify({ attachments: figures }, null, 2)}\n`);
    return;
  }
  if (opts.latency) {
    if (!opts['from-source']) ensureCompiled(log);
    const every = Number(opts['poll-interval']);
    log(`bench: latency of ${N} mails appended one at a time, with IMAP IDLE and with a ${every} s poll interval`);
    const archive = opts['beside-replay'];
    if (archive && !opts.team?.length) throw new Error('--beside-replay needs the team: --team ADDRESS (one per address)');
    const figures = await runLatencyBench(N, every, log, archive ? { archive, team: opts.team ?? [] } : undefined);
    if (opts.json) process.stdout.write(`${JSON.stringify({ pollIntervalSeconds: every, figures }, null, 2)}\n`);
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    for (const f of figures)
      log(
        `${f.mode === 'idle' ? 'IMAP IDLE ' : f.mode === 'idle-during-replay' ? 'IMAP IDLE during the replay' : `poll ${every} s`}: arrival → awaiting approval p50 ${s(f.p50Ms)}, p95 ${s(f.p95Ms)}, max ${s(f.maxMs)} (${f.emails} mails)`,
      );
    return;
  }
  if (!opts['from-source']) ensureCompiled(log);
  log(
    `bench: ${N} emails from ${source}${opts.twin ? ', with the bare twin' : ''}, ${W} worker process${W > 1 ? 'es' : ''}, ` +
      `${livedIn ? 'lived-in' : 'empty'} installation; starting the real stack (LLM = local double)`,
  );
  // The worker's limits can be set as for production (WORKER_*, IMAP_POLL_BATCH_SIZE, BACKLOG_LIMIT);
  // the twin reads the same config.
  const passed = Object.entries(process.env).filter(([k]) =>
    /^(WORKER_|IMAP_POLL_BATCH_SIZE$|BACKLOG_LIMIT$|CASES$|IMAP_IDLE$|EMBEDDER$|PAYLOAD_KEYS$|PAYLOAD_KEY_ID$)/.test(k),
  );
  // The SMTP listener and the LLM double only count (no raw message or prompt kept per email).
  const stack = await startStack({
    env: { ...(Object.fromEntries(passed) as Record<string, string>), ...(livedIn ? livedInEnv(process.env) : {}) },
    keepTraffic: false,
  });
  const { client, connection } = await connectTemporalClient(stack.config);
  // The knowledge folder lives with the stack (removed with it); the workers read it as KNOWLEDGE_DIR.
  if (livedIn) {
    stack.env.KNOWLEDGE_DIR = path.join(stack.dir, 'knowledge');
    fs.mkdirSync(stack.env.KNOWLEDGE_DIR, { recursive: true });
  }
  const seeded = livedIn ? await seedLivedIn(loadConfig(stack.env), stack.db.pool, log) : undefined;
  let fleet: WorkerFleet | undefined;
  // The arrivals timed during the drain: stopped and awaited before the stack stops, also when the
  // drain failed (else their queries meet a closed pool and hide the drain's own error).
  let draining = false;
  let probes: Promise<number[]> = Promise.resolve([]);
  try {
    // The dev server's own CPU: the other half of orchestration.
    const serverPid = findProcess(path.join(stack.dir, 'temporal', 'temporal.db'));
    const twinServer0 = serverPid ? processCpu(serverPid) : 0;
    const twinCpu0 = process.cpuUsage();
    const twin = opts.twin ? await runTwin(stack.config, N, 8) : undefined;
    if (twin) twin.serverCpuMsPerWorkflow = serverPid ? ((processCpu(serverPid) - twinServer0) * 1000) / N : NaN;
    // The twin's worker and client run in this process (nothing else here is busy meanwhile).
    const twinCpu = process.cpuUsage(twinCpu0);
    if (twin) twin.workerCpuMsPerWorkflow = (twinCpu.user + twinCpu.system) / 1000 / N;
    if (twin) log(`twin: ${N} workflows in ${twin.ms} ms (${twin.perSecond.toFixed(1)}/s)`);

    const env = { ...stack.env, ...(opts['from-source'] ? { EMAIL_RAG_FROM_SOURCE: '1' } : {}) };
    const profileDir = opts['cpu-prof'] ? path.resolve(opts['cpu-prof']) : undefined;
    fleet = await startWorkerFleet(W, env, stack.dir, profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
    const { mode, members } = fleet;
    log(`worker: ${mode}, ${W} started in ${fleet.startMs} ms (pid ${members.map((m) => m.pid).join(', ')})`);

    await installSchedules(client, stack.config);
    await triggerPoll(client, stack.config);
    await waitFor(
      'mailbox connected',
      async () => ((await stack.db.pool.query('SELECT 1 FROM mailbox_watermarks')) as unknown[]).length > 0,
    );
    await sleep(3_000);
    const idleRss = fleet.rssNow();

    // One email alone: latency without queueing.
    const dirSingle = await prepare(stack, source, 1, 'single');
    const s0 = Date.now();
    await intake(stack, client, source, dirSingle, awaiting(stack, 1), 120_000);
    const singleMs = Date.now() - s0;

    log(`bench: putting ${N} emails into the ${source === 'imap' ? 'mailbox' : 'ingest folder'}`);
    const dir = await prepare(stack, source, N, 'batch');
    const server0 = serverPid ? processCpu(serverPid) : 0;
    // The other processes on the path: MariaDB (shared with anything else on this machine),
    // Dovecot with its children, and this process (SMTP listener, LLM double, bench polling).
    const mariadbPid = findProcess('mariadbd');
    const dovecotPid = findProcess(stack.dovecot.configFile);
    // The embedder the workers call (the stack's, reached as EMBEDDER=remote): its CPU is part of
    // each email's cost (passages at index time, the new mail at draft time).
    const embedderPid = stack.embedder.managed?.child.pid;
    const othersNow = () => ({
      embedder: embedderPid ? treeCpu(embedderPid) : NaN,
      mariadb: mariadbPid ? processCpu(mariadbPid) : NaN,
      dovecot: dovecotPid ? treeCpu(dovecotPid) : NaN,
      bench: process.cpuUsage(),
    });
    const othersSince = (o: ReturnType<typeof othersNow>) => {
      const benchCpu = process.cpuUsage(o.bench);
      return {
        embedder: embedderPid ? treeCpu(embedderPid) - o.embedder : NaN,
        mariadb: mariadbPid ? processCpu(mariadbPid) - o.mariadb : NaN,
        dovecot: dovecotPid ? treeCpu(dovecotPid) - o.dovecot : NaN,
        bench: (benchCpu.user + benchCpu.system) / 1e6,
      };
    };
    const others0 = othersNow();
    const t0 = Date.now();
    fleet.sample();
    await intake(stack, client, source, dir, awaiting(stack, N + 1), Math.max(600_000, N * 1_000));
    const t1 = Date.now();
    const serverIntake = serverPid ? processCpu(serverPid) - server0 : NaN;
    const othersIntake = othersSince(others0);
    fleet.sample();
    const lat = await latencies(stack, t0, 'batch');
    const batchIds = await batchEmailIds(stack, 'batch');
    const starts = await startSpread(client, batchIds, t0);
    const histories: BenchReport['histories'] = {
      email: batchIds[0] ? await historyShape(client, batchIds[0]) : undefined,
      twin: twin ? await historyShape(client, twin.sampleWorkflowId) : undefined,
    };
    const intakeRows = await stepRows(stack, ['fetch', 'parse', 'index', 'draft']);
    await sleep(3_000);
    const waitingRss = fleet.rssNow();

    if (!opts['no-approve']) log(`bench: approving ${N + 1} drafts with the approve Update`);
    const a0 = Date.now();
    const serverA0 = serverPid ? processCpu(serverPid) : 0;
    const othersA0 = othersNow();
    // Approvals arrive 32 at a time, as reviewers working through a queue send them; meanwhile single
    // mails arrive over IDLE and are timed to a person (the drain must not starve new mail). The
    // watcher starts only now: the intake above is timed from one poll over a full mailbox.
    draining = !opts['no-approve'] && stack.config.imap.idle;
    if (draining) await watching(client, stack);
    probes = draining ? probeArrivals(stack, 'drain', () => draining) : Promise.resolve([] as number[]);
    const approvals = opts['no-approve'] ? 0 : await approveAll(stack, client, 32);
    const sent = progress('send steps finished');
    await waitFor(
      'all send steps finished',
      async () => {
        const done = await sendsDone(stack);
        sent(done, approvals);
        return done >= approvals;
      },
      Math.max(600_000, N * 1_000),
      100,
    );
    const a1 = Date.now();
    draining = false;
    const arrivalsDuringDrain = await probes;
    const serverSends = serverPid ? processCpu(serverPid) - serverA0 : NaN;
    const othersSends = othersSince(othersA0);
    fleet.sample();
    const sendRows = await stepRows(stack, [STEPS.decide, STEPS.send]);
    if (approvals > 0 && batchIds[0]) histories.sent = await historyShape(client, batchIds[0]);
    const [caseRow] = batchIds[0]
      ? ((await stack.db.pool.query('SELECT case_id FROM emails WHERE id = ?', [batchIds[0]])) as Array<{ case_id: string | null }>)
      : [];
    // Since 1.4 a case runs a workflow only for an automatic send or a summary: none here, as a rule.
    if (caseRow?.case_id) histories.caseRun = await historyShape(client, caseRow.case_id).catch(() => undefined);
    histories.caseClock = await historyShape(client, CASE_CLOCK.workflowId).catch(() => undefined);
    const smtp = smtpCopies(stack);
    await sleep(1_000);
    const trouble = (await stack.db.pool.query(
      `SELECT event_type, COUNT(*) AS n FROM audit_log WHERE event_type NOT IN ('status_changed', 'draft_approved', 'mailbox_connected') GROUP BY event_type`,
    )) as Array<{ event_type: string; n: number }>;
    // What a retry, a dead job or a Sent copy that failed said: a run with them is worth reading.
    const troubleExamples = (await stack.db.pool.query(
      `SELECT event_type, message FROM audit_log WHERE event_type IN ('retry_scheduled', 'job_dead', 'sent_copy_failed') ORDER BY id LIMIT 3`,
    )) as Array<{ event_type: string; message: string }>;
    fleet.stopSampling();
    for (const m of members) {
      const roles = Object.values(m.proc.threadNames()).reduce<Record<string, number>>((o, c) => ({ ...o, [c]: (o[c] ?? 0) + 1 }), {});
      log(
        `worker ${m.index} threads by role: ${Object.entries(roles)
          .map(([c, k]) => `${c} ${k}`)
          .join(', ')} (live), ${m.proc.endedThreads()} ended while sampled`,
      );
    }
    // After the measured phases: which worker ran which activity, then each worker's CPU split.
    const spread = await workerSpread(
      stack,
      client,
      members.map((m) => m.pid),
    );
    const sampled = members.map((m) => ({ pid: m.pid, samples: m.proc.classified() }));
    const intakeCpu = attributeFleetCpu(sampled, intakeRows, spread.rowOwner, t0, t1);
    const sendCpu = attributeFleetCpu(sampled, sendRows, spread.rowOwner, a0, a1);
    const peakIntake = fleet.maxRss(t0, t1);
    const peakApproval = fleet.maxRss(a0, a1);

    const report: BenchReport = {
      emails: N,
      source,
      installation: seeded ? { kind: 'lived-in', ...seeded } : { kind: 'empty' },
      worker: {
        mode,
        startMs: fleet.startMs,
        maxCachedWorkflows: stack.config.worker.maxCachedWorkflows,
        heapGrowthPercent: stack.config.worker.heapGrowthPercent,
        processes: W,
      },
      limits: { pollBatch: stack.config.imap.pollBatchSize, backlog: stack.config.imap.backlogLimit, ...stack.config.worker.concurrency },
      singleMs,
      intake: { ms: t1 - t0, perSecond: (N * 1000) / (t1 - t0), ...lat },
      twin,
      sends: { approvals, ms: a1 - a0, perSecond: (approvals * 1000) / (a1 - a0), ...smtp, arrivalsDuringDrain },
      rss: { idle: idleRss.sum, waiting: waitingRss.sum, duringIntake: peakIntake.sum, duringApproval: peakApproval.sum },
      cpu: { intake: intakeCpu.total, sends: sendCpu.total },
      workers: members.map((m, i) => ({
        index: m.index,
        pid: m.pid,
        rss: {
          idle: idleRss.perWorker[i]!,
          waiting: waitingRss.perWorker[i]!,
          duringIntake: peakIntake.perWorker[i]!,
          duringApproval: peakApproval.perWorker[i]!,
        },
        cpu: { intake: intakeCpu.perWorker[i]!, sends: sendCpu.perWorker[i]! },
        activities: spread.perWorker[i]!.activities,
        workflowTasks: spread.perWorker[i]!.workflowTasks,
      })),
      unattributedActivities: spread.unattributed,
      serverCpu: { intake: serverIntake, sends: serverSends },
      othersCpu: { intake: othersIntake, sends: othersSends },
      starts,
      histories,
      stepsSingle: await stepRuntimes(stack, 'single'),
      stepsBatch: await stepRuntimes(stack, 'batch'),
      trouble: Object.fromEntries(trouble.map((t) => [t.event_type, Number(t.n)])),
      troubleExamples: troubleExamples.map((t) => `${t.event_type}: ${t.message.slice(0, 300)}`),
    };
    printReport(report, opts.json ? 'json' : 'text');
  } finally {
    draining = false;
    await probes.catch(() => []);
    await fleet?.stop();
    await connection.close();
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`bench failed: ${(err as Error).message}`);
    process.exit(1);
  },
);
