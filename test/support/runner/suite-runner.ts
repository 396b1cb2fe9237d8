/**
 * The suite runner behind `npm test` (scripts/run-tests.sh): runs each test file in its own
 * `node --test` process, several files at once in lanes, prints each file's output in one piece
 * when it ends, and closes with the failed files, the slowest ten files and the plain line
 * `tests: N passed, M failed`.
 *
 *   node --import tsx test/support/runner/suite-runner.ts [--fast] [--lanes N] [files…] [-- node --test options]
 *
 * Why a runner of our own and not `node --test --test-concurrency=N`: node's runner interleaves the
 * output of parallel files line by line, records no time per file (setup and teardown included),
 * and starts nothing once for all files. Here the shared servers (see shared-services.ts) start
 * once, before the first file, and every file finds them through its environment.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSharedServices, type SharedServices } from './shared-services';
import { fileLimitMs, guessMs, isOnDemand, isServerFree, runsAlone } from './tiers';

const root = path.resolve(__dirname, '../../..');
const timesFile = path.join(root, '.local', 'test-times.json');
const countReporter = path.join(__dirname, 'count-reporter.mjs');

interface FileResult {
  file: string;
  ms: number;
  exitCode: number;
  passed: number;
  failed: number;
  skipped: number;
  output: string;
}

function parseArgs(argv: string[]): { files: string[]; nodeOptions: string[]; fast: boolean; lanes?: number } {
  const files: string[] = [];
  const nodeOptions: string[] = [];
  let fast = false;
  let lanes: number | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--fast') fast = true;
    else if (arg === '--lanes') lanes = Number(argv[++i]);
    else if (arg.startsWith('--lanes=')) lanes = Number(arg.slice('--lanes='.length));
    else if (arg.startsWith('-')) nodeOptions.push(arg);
    else files.push(path.relative(root, path.resolve(arg)));
  }
  if (lanes !== undefined && !(Number.isInteger(lanes) && lanes > 0)) throw new Error('--lanes takes a whole number above 0');
  return { files, nodeOptions, fast, lanes };
}

function allTestFiles(dir = path.join(root, 'test')): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...allTestFiles(full));
    else if (entry.name.endsWith('.test.ts') && !isOnDemand(path.relative(root, full))) found.push(path.relative(root, full));
  }
  return found.sort();
}

function readTimes(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(timesFile, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/** Longest first (by the last run's times, else by tier), so no long file starts last and runs alone. */
function schedule(files: string[], times: Record<string, number>): string[] {
  const guess = (file: string): number => times[file] ?? guessMs(file);
  return [...files].sort((a, b) => guess(b) - guess(a) || a.localeCompare(b));
}

function runFile(file: string, env: NodeJS.ProcessEnv, nodeOptions: string[], scratch: string): Promise<FileResult> {
  const counts = path.join(scratch, `${file.replace(/[^a-zA-Z0-9]+/g, '_')}.jsonl`);
  const args = [
    '--import',
    'tsx',
    '--test',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${countReporter}`,
    `--test-reporter-destination=${counts}`,
    `--test-timeout=${process.env.TEST_TIMEOUT_MS ?? '600000'}`,
    ...nodeOptions,
    file,
  ];
  const started = Date.now();
  const limitMs = fileLimitMs(file);
  return new Promise((resolve) => {
    // Its own process group, so a file that hangs is stopped with every server it started.
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running.add(child.pid!);
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    let hung = false;
    const watchdog = setTimeout(() => {
      hung = true;
      stopGroup(child.pid!);
    }, limitMs);
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      clearTimeout(watchdog);
      running.delete(child.pid!);
      if (hung) {
        // A hang must end as a failure that names the file, not as a suite that never ends.
        const limit = limitMs >= 60_000 ? `${(limitMs / 60_000).toFixed(0)} min` : `${(limitMs / 1000).toFixed(0)} s`;
        chunks.push(
          Buffer.from(
            `\n✖ ${file} was stopped: it ran longer than ${limit} (TEST_FILE_TIMEOUT_MS); the output above is what it printed until then\n`,
          ),
        );
      }
      const lines = existsSync(counts) ? readFileSync(counts, 'utf8').split('\n').filter(Boolean) : [];
      const outcomes = lines.map((l) => (JSON.parse(l) as { outcome: string }).outcome);
      const failed = outcomes.filter((o) => o === 'fail').length;
      const exitCode = hung ? 124 : (code ?? (signal ? 128 : 1));
      resolve({
        file,
        ms: Date.now() - started,
        exitCode,
        passed: outcomes.filter((o) => o === 'pass').length,
        // A file that exits non-zero without a failed test (a crash in a hook, a signal) counts as one failure.
        failed: failed === 0 && exitCode !== 0 ? 1 : failed,
        skipped: outcomes.filter((o) => o === 'skip').length,
        output: Buffer.concat(chunks).toString('utf8'),
      });
    };
    // 'close' waits for the output pipes, which a server the file left running may hold open:
    // after the file's own process exits, its output gets 5 s to drain, then the file is done.
    let ended = false;
    child.on('close', (code, signal) => {
      if (!ended) finish(code, signal);
      ended = true;
    });
    child.on('exit', (code, signal) => {
      setTimeout(() => {
        if (ended) return;
        ended = true;
        child.stdout.destroy();
        child.stderr.destroy();
        finish(code, signal);
      }, 5_000);
    });
  });
}

/** The process groups of the files running now: stopped with the runner. */
const running = new Set<number>();

/** Stops a file's process group: TERM, then KILL for whatever is left 10 s later. */
function stopGroup(pid: number): void {
  const signal = (sig: NodeJS.Signals): void => {
    try {
      process.kill(-pid, sig);
    } catch {
      // gone already
    }
  };
  signal('SIGTERM');
  setTimeout(() => signal('SIGKILL'), 10_000).unref();
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    for (const pid of running) stopGroup(pid);
    process.exitCode = 130;
    setTimeout(() => process.exit(), 11_000).unref();
  });
}

/** Files marked to run alone go first, one after the other; then the rest in `lanes` lanes. */
async function runPool(files: string[], lanes: number, run: (file: string) => Promise<FileResult>): Promise<FileResult[]> {
  const results: FileResult[] = [];
  const alone = files.filter(runsAlone);
  const queue = files.filter((f) => !alone.includes(f));
  const runAndPrint = async (file: string): Promise<void> => {
    const result = await run(file);
    results.push(result);
    const mark = result.exitCode === 0 ? 'ok' : 'FAILED';
    const head = `${result.file} (${(result.ms / 1000).toFixed(1)} s, ${mark}) [${results.length}/${files.length}]`;
    process.stdout.write(`\n━━ ${head}\n${result.output}`);
  };
  for (const file of alone) await runAndPrint(file);
  async function lane(): Promise<void> {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) await runAndPrint(file);
  }
  await Promise.all(Array.from({ length: Math.min(lanes, queue.length) }, lane));
  return results;
}

/** The spec reporter's closing "failing tests" section (or the output's end, for a crash), at most 120 lines. */
function failureExcerpt(output: string, maxLines = 120): string {
  const at = output.lastIndexOf('✖ failing tests:');
  const lines = (at >= 0 ? output.slice(at) : output).trimEnd().split('\n');
  const kept = at >= 0 ? lines.slice(0, maxLines) : lines.slice(-maxLines);
  const cut = lines.length - kept.length;
  return cut > 0 ? `${kept.join('\n')}\n… ${cut} more lines in the file's output above` : kept.join('\n');
}

function report(results: FileResult[], wallMs: number): void {
  const sum = (k: 'passed' | 'failed' | 'skipped'): number => results.reduce((n, r) => n + r[k], 0);
  const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 10);
  console.log(`\nslowest files (wall time in its lane, setup and teardown included):`);
  for (const r of slowest) console.log(`  ${(r.ms / 1000).toFixed(1).padStart(7)} s  ${r.file}`);
  const failedFiles = results.filter((r) => r.exitCode !== 0);
  if (failedFiles.length > 0) {
    console.log(`\nfailed files:`);
    for (const r of failedFiles) console.log(`  ${r.file} (exit ${r.exitCode}, ${r.failed} failed)`);
    // Again at the very end, where a log cut to its tail (as CI keeps it) still shows why.
    for (const r of failedFiles) console.log(`\n━━ why ${r.file} failed\n${failureExcerpt(r.output)}`);
  }
  console.log(`\n${results.length} files in ${(wallMs / 1000).toFixed(0)} s (${(wallMs / 60_000).toFixed(1)} min)`);
  const skipped = sum('skipped');
  console.log(`tests: ${sum('passed')} passed, ${sum('failed')} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
}

async function main(): Promise<void> {
  const { files: named, nodeOptions, fast, lanes } = parseArgs(process.argv.slice(2));
  let files = named.length > 0 ? named : allTestFiles();
  if (fast) files = files.filter(isServerFree);
  if (files.length === 0) throw new Error('no test files (test/**/*.test.ts) to run');
  const times = readTimes();
  const started = Date.now();
  const scratch = mkdtempSync(path.join(tmpdir(), 'email-rag-suite-'));
  let shared: SharedServices | undefined;
  try {
    // The on-demand files start their servers in containers: they need none of the shared ones.
    shared = files.some((f) => !isServerFree(f) && !isOnDemand(f)) ? await startSharedServices(scratch) : undefined;
    const env = { ...process.env, ...shared?.env };
    const laneCount = lanes ?? Number(process.env.TEST_LANES ?? 3);
    const results = await runPool(schedule(files, times), laneCount, (f) => runFile(f, env, nodeOptions, scratch));
    const wall = Date.now() - started;
    mkdirSync(path.dirname(timesFile), { recursive: true });
    writeFileSync(timesFile, JSON.stringify({ ...times, ...Object.fromEntries(results.map((r) => [r.file, r.ms])) }, null, 1));
    report(results, wall);
    process.exitCode = results.some((r) => r.exitCode !== 0) ? 1 : 0;
  } finally {
    await shared?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(`suite runner: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
