/**
 * The fixed and per-email cost of a lived-in installation in measures that do not move with the
 * machine's load: the worker's memory while idle (RSS, V8 heap by space) and the SQL it sends per
 * email, counted inside the worker (scripts/bench/sql-census.cjs) with MariaDB's Handler_*
 * counters of its own connections.
 *
 *   node --import tsx scripts/bench/lived-in-cost.ts [--emails 50] [--empty] [--from-source] [--heap-snapshot DIR] [--cpu-prof DIR] [--batch-prof FILE] [--json FILE]
 *
 * It seeds the installation as `npm run bench` does (scripts/bench/lived-in.ts), starts one worker,
 * takes the idle figures after the first poll, then runs one email alone (the first draft loads
 * what drafting needs), a batch of N to awaiting approval and their approvals to sent, and prints
 * statements, rows and Handler reads per email for the intake and the send, statement by statement.
 * `--batch-prof FILE` writes a CPU profile of the worker's main thread over the batch's intake alone,
 * without the census's own SHOW SESSION STATUS after every statement (so no Handler counts then).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { connectTemporalClient } from '../../src/platform/temporal-connection';
import { loadConfig } from '../../src/config';
import { installSchedules, triggerPoll } from '../../src/operations/schedules';
import { startStack, type TestStack } from '../../test/support/stack';
import { waitFor } from '../../test/support/wait';
import { startWorkerProcess } from '../../test/support/services/worker-process';
import { approveAll, countStatus, firstDeadJob, intake, prepare, sendsDone } from './pipeline';
import { livedInEnv, seedLivedIn } from './lived-in';
import { cpuBetween, findProcess, processCpu, sampleProcess, type Sample } from './proc-sampler';
import { ensureCompiled } from './compiled-worker';

const { values: opts } = parseArgs({
  options: {
    emails: { type: 'string', default: '50' },
    empty: { type: 'boolean', default: false },
    'heap-snapshot': { type: 'string' },
    'cpu-prof': { type: 'string' },
    'batch-prof': { type: 'string' },
    json: { type: 'string' },
    'from-source': { type: 'boolean', default: false },
  },
});
const N = Number(opts.emails);
const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Entry {
  n: number;
  rows: number;
  bytes?: number;
  failed: number;
  handlers: Record<string, number>;
}
interface Census {
  at: number;
  statements: Record<string, Entry>;
  memory: {
    usage: NodeJS.MemoryUsage;
    heap: { used_heap_size: number; total_heap_size: number; malloced_memory: number; external_memory: number };
    spaces: Array<{ space_name: string; space_used_size: number; space_size: number }>;
  };
}

interface CostPoint {
  worker: Sample;
  server: number;
  smtp: { connections: number; received: number };
}

/** Per send: the worker's CPU by thread class, the dev server's CPU, SMTP connections opened. */
function printSendCost(a: CostPoint, b: CostPoint, per: number): Record<string, number> {
  const cpu = cpuBetween(a.worker, b.worker);
  const out: Record<string, number> = {
    smtpConnections: (b.smtp.connections - a.smtp.connections) / per,
    received: b.smtp.received - a.smtp.received,
    workerCpuMs: (Object.values(cpu).reduce((s, v) => s + v, 0) * 1000) / per,
    ...Object.fromEntries(Object.entries(cpu).map(([k, v]) => [`workerCpuMs.${k}`, (v * 1000) / per])),
    serverCpuMs: ((b.server - a.server) * 1000) / per,
  };
  log(
    `send cost, per email (${per}): ${Object.entries(out)
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(', ')}`,
  );
  return out;
}

/** The census after a garbage collection asked for now; `profile` starts a CPU profile to that file, '' stops it. */
async function census(file: string, profile?: string): Promise<Census> {
  const asked = Date.now();
  if (profile !== undefined) fs.writeFileSync(`${file}.prof`, profile);
  else fs.writeFileSync(`${file}.req`, '');
  for (;;) {
    await sleep(100);
    if (fs.existsSync(`${file}.req`) || fs.existsSync(`${file}.prof`)) continue;
    const c = JSON.parse(fs.readFileSync(file, 'utf8')) as Census;
    if (c.at > asked) return c;
  }
}

function delta(a: Census, b: Census): Record<string, Entry> {
  const out: Record<string, Entry> = {};
  for (const [k, e] of Object.entries(b.statements)) {
    const p = a.statements[k];
    const handlers: Record<string, number> = {};
    for (const [h, v] of Object.entries(e.handlers)) {
      const d = v - (p?.handlers[h] ?? 0);
      if (d) handlers[h] = d;
    }
    const n = e.n - (p?.n ?? 0);
    if (n > 0)
      out[k] = { n, rows: e.rows - (p?.rows ?? 0), bytes: (e.bytes ?? 0) - (p?.bytes ?? 0), failed: e.failed - (p?.failed ?? 0), handlers };
  }
  return out;
}

const HANDLERS = [
  'Handler_read_key',
  'Handler_read_next',
  'Handler_read_prev',
  'Handler_read_first',
  'Handler_read_rnd_next',
  'Handler_write',
];

function printPhase(what: string, d: Record<string, Entry>, per: number): Record<string, number> {
  const total = (f: (e: Entry) => number) => Object.values(d).reduce((s, e) => s + f(e), 0) / per;
  const totals: Record<string, number> = {
    statements: total((e) => e.n),
    rows: total((e) => e.rows),
    kBytes: total((e) => e.bytes ?? 0) / 1024,
  };
  for (const h of HANDLERS) totals[h] = total((e) => e.handlers[h] ?? 0);
  log(
    `\n${what}, per email (${per}): ${Object.entries(totals)
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join(', ')}`,
  );
  const rows = Object.entries(d).sort(
    (x, y) => y[1].n - x[1].n || (y[1].handlers.Handler_read_rnd_next ?? 0) - (x[1].handlers.Handler_read_rnd_next ?? 0),
  );
  for (const [sql, e] of rows) {
    const h = HANDLERS.map((k) => `${k.replace('Handler_', '')}=${((e.handlers[k] ?? 0) / per).toFixed(1)}`).join(' ');
    const kb = ((e.bytes ?? 0) / per / 1024).toFixed(1);
    log(`  ${(e.n / per).toFixed(2).padStart(6)}  rows ${(e.rows / per).toFixed(1).padStart(6)}  kB ${kb.padStart(6)}  ${h}  ${sql}`);
  }
  return totals;
}

/** RssAnon, RssFile and the thread count of a process, from /proc. */
function procStatus(pid: number): Record<string, number> {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { rssAnon: kb('RssAnon') / 1024, rssFile: kb('RssFile') / 1024, threads: kb('Threads') };
}

function printMemory(what: string, rssBytes: number, c: Census, pid: number): Record<string, number> {
  const mb = (b: number) => b / 1048576;
  const m = c.memory;
  const figures: Record<string, number> = {
    rss: mb(rssBytes),
    ...procStatus(pid),
    heapUsed: mb(m.usage.heapUsed),
    heapTotal: mb(m.usage.heapTotal),
    external: mb(m.usage.external),
    arrayBuffers: mb(m.usage.arrayBuffers),
    malloced: mb(m.heap.malloced_memory),
  };
  for (const s of m.spaces) figures[`space:${s.space_name}`] = mb(s.space_used_size);
  log(
    `memory ${what}: ${Object.entries(figures)
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join(', ')} (MB; the V8 figures are the main thread's)`,
  );
  return figures;
}

async function main(): Promise<void> {
  const livedIn = !opts.empty;
  if (opts['from-source']) process.env.EMAIL_RAG_FROM_SOURCE = '1';
  else ensureCompiled(log);
  const stack: TestStack = await startStack({ env: livedIn ? livedInEnv(process.env) : {}, keepTraffic: false });
  const { client, connection } = await connectTemporalClient(stack.config);
  let worker: Awaited<ReturnType<typeof startWorkerProcess>> | undefined;
  try {
    if (livedIn) {
      stack.env.KNOWLEDGE_DIR = path.join(stack.dir, 'knowledge');
      fs.mkdirSync(stack.env.KNOWLEDGE_DIR, { recursive: true });
      await seedLivedIn(loadConfig(stack.env), stack.db.pool, log);
    }
    const file = path.join(stack.dir, 'census.json');
    const snapDir = opts['heap-snapshot'] ? path.resolve(opts['heap-snapshot']) : undefined;
    const nodeArgs = [
      '--require',
      path.join(__dirname, 'sql-census.cjs'),
      '--expose-gc',
      ...(opts['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(opts['cpu-prof'])}`] : []),
    ];
    const batchProf = opts['batch-prof'] ? path.resolve(opts['batch-prof']) : undefined;
    const censusEnv = { BENCH_CENSUS_FILE: file, ...(batchProf ? { BENCH_CENSUS_HANDLERS: 'off' } : {}) };
    worker = await startWorkerProcess({ ...stack.env, ...censusEnv }, path.join(stack.dir, 'worker.log'), undefined, nodeArgs);
    const pid = worker.managed.child.pid as number;
    const proc = sampleProcess(pid, 500);
    const snapshot = async (name: string) => {
      if (!snapDir) return;
      const to = path.join(snapDir, `${livedIn ? 'lived-in' : 'empty'}-${name}.heapsnapshot`);
      fs.writeFileSync(`${file}.snap`, to);
      await waitFor(`heap snapshot ${name}`, async () => fs.existsSync(to), 300_000, 500);
    };

    await installSchedules(client, stack.config);
    await triggerPoll(client, stack.config);
    await waitFor(
      'mailbox connected',
      async () => ((await stack.db.pool.query('SELECT 1 FROM mailbox_watermarks')) as unknown[]).length > 0,
    );
    await waitFor(
      'knowledge synced',
      async () => !livedIn || fs.readFileSync(path.join(stack.dir, 'worker.log'), 'utf8').includes('knowledge folder'),
    );
    await sleep(3_000);
    const idle = await census(file);
    const report: Record<string, unknown> = { installation: livedIn ? 'lived-in' : 'empty', emails: N };
    report.idle = printMemory('idle (after the first poll)', proc.sample().rssBytes, idle, pid);
    await snapshot('idle');

    const awaiting = (n: number) => async () => {
      const dead = await firstDeadJob(stack);
      if (dead) throw new Error(`an activity gave up: ${dead}`);
      return (await countStatus(stack, 'awaiting_approval')) >= n;
    };
    await prepare(stack, 'imap', 1, 'single');
    await intake(stack, client, 'imap', undefined, awaiting(1), 300_000);
    await sleep(2_000);
    const single = await census(file);
    report.afterFirst = printMemory('after the first email', proc.sample().rssBytes, single, pid);
    report.first = printPhase('the first email, to awaiting approval', delta(idle, single), 1);
    await snapshot('first');

    await prepare(stack, 'imap', N, 'batch');
    if (batchProf) await census(file, batchProf);
    await intake(stack, client, 'imap', undefined, awaiting(N + 1), Math.max(600_000, N * 10_000));
    if (batchProf) {
      await census(file, '');
      await waitFor('batch profile written', async () => fs.existsSync(batchProf), 60_000, 200);
    }
    await sleep(2_000);
    const batch = await census(file);
    report.waiting = printMemory(`with ${N + 1} waiting`, proc.sample().rssBytes, batch, pid);
    report.intake = printPhase('intake to awaiting approval', delta(single, batch), N);

    // CPU moves with the load (compare runs in the same hour); the connection count does not.
    const serverPid = findProcess(path.join(stack.dir, 'temporal', 'temporal.db'));
    const before = { worker: proc.sample(), server: serverPid ? processCpu(serverPid) : NaN, smtp: stack.smtp.counts() };
    const approvals = await approveAll(stack, client, 8);
    await waitFor('sends done', async () => (await sendsDone(stack)) >= approvals, Math.max(600_000, N * 10_000), 200);
    const done = { worker: proc.sample(), server: serverPid ? processCpu(serverPid) : NaN, smtp: stack.smtp.counts() };
    await sleep(2_000);
    const sent = await census(file);
    report.sent = printMemory('after the sends', proc.sample().rssBytes, sent, pid);
    report.send = printPhase('approval to sent', delta(batch, sent), approvals);
    proc.classified();
    report.sendCost = printSendCost(before, done, approvals);
    proc.stop();
    if (opts.json) fs.writeFileSync(opts.json, JSON.stringify(report, null, 2));
  } finally {
    await worker?.stop().catch(() => undefined);
    await connection.close();
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`lived-in-cost failed: ${(err as Error).stack ?? String(err)}`);
    process.exit(1);
  },
);
