/**
 * Samples one process from /proc (Linux): resident memory and CPU time per thread class, every
 * `everyMs`. Thread classes come from the thread names Node and the Temporal SDK give:
 *   main      the JavaScript main thread: activities, local activities, the SDK's JS glue
 *   workflow  the worker_thread running the workflow sandboxes (the SDK's default pool is one
 *             thread when V8 contexts are reused)
 *   core      the SDK's Rust core (tokio runtime threads: gRPC, task polling, state machines)
 *   helpers   every other thread: V8's garbage collector and compiler helpers, libuv's pool
 * Node 20 names all its own threads "node", so the workflow thread is told apart as the busiest
 * of them; the main thread is the one whose id is the process id.
 *
 * Memory stays bounded however long the run: the worker starts and ends short-lived threads all
 * the time (hundreds a minute), so a sample keeps only the threads alive at that moment plus the
 * final CPU of the ended ones summed per class (an ended thread is never the workflow thread,
 * which lives as long as the worker); and once `maxSamples` are held every other timer sample is
 * dropped and the timer keeps every second one from then on (explicit `sample()` calls, the
 * phase boundaries, always stay). Copying every thread ever seen into each sample at 10 samples
 * a second grew the bench's heap with the square of the run time (4 GB after about 45 minutes).
 */
import fs from 'node:fs';

export type ThreadClass = 'main' | 'workflow' | 'core' | 'helpers';
export const THREAD_CLASSES: ThreadClass[] = ['main', 'workflow', 'core', 'helpers'];

export interface Sample {
  t: number;
  /** Resident memory; after thinning, the largest of this sample and the dropped ones before it. */
  rssBytes: number;
  /** Cumulative CPU seconds per thread class (threads that ended keep their last value). */
  cpu: Record<ThreadClass, number>;
  /** Cumulative CPU seconds per thread id, of the threads alive at this sample. */
  byThread: Map<number, number>;
  /** Cumulative CPU seconds of the threads that had ended by this sample, per class. */
  ended: Record<ThreadClass, number>;
  /** Taken by an explicit `sample()` call: never dropped by thinning. */
  pinned?: boolean;
}

/** Samples one sampler holds at most (about 1.5 MB with the worker's ~25 live threads). */
export const MAX_SAMPLES = 4096;

const TICKS_PER_SECOND = 100; // CLK_TCK on Linux

function classify(pid: number, tid: number, name: string, workflowTid: number | undefined): ThreadClass {
  if (tid === pid) return 'main';
  if (/^tokio|^temporal|^core|^workflow-proces/i.test(name)) return 'core';
  return tid === workflowTid ? 'workflow' : 'helpers';
}

function readTask(pid: number, tid: number): { name: string; ticks: number } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // The name is in parentheses and may hold spaces: split after the last ')'.
    const close = stat.lastIndexOf(')');
    const name = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime
    return { name, ticks };
  } catch {
    return undefined; // the thread ended between readdir and read
  }
}

export interface ProcSampler {
  samples: Sample[];
  /** The samples with their per-class CPU filled in (by the thread roles known now). */
  classified(): Sample[];
  /** A sample now (also taken on the timer). */
  sample(): Sample;
  /** The sample closest to time `t` (not after it when possible). */
  at(t: number): Sample;
  /** Largest RSS seen between t0 and t1. */
  maxRss(t0: number, t1: number): number;
  stop(): void;
  /** The live threads (at the last sample) by id and name, with their class. */
  threadNames(): Record<string, ThreadClass>;
  /** How many threads ended while sampled. */
  endedThreads(): number;
}

export function sampleProcess(pid: number, everyMs = 100, maxSamples = MAX_SAMPLES): ProcSampler {
  const perThread = new Map<number, { ticks: number; name: string }>();
  const ended = emptyCpu();
  let endedCount = 0;
  const samples: Sample[] = [];
  /** The timer keeps every `stride`-th of its samples; doubled at each thinning. */
  let stride = 1;
  let tick = 0;
  const take = (pinned: boolean): Sample => {
    let tids: number[] | undefined;
    try {
      tids = fs.readdirSync(`/proc/${pid}/task`).map(Number);
    } catch {
      // the process ended: keep the last values
    }
    if (tids) {
      const alive = new Set(tids);
      for (const [tid, t] of perThread) {
        if (alive.has(tid)) continue;
        // Classified without a workflow thread: an ended thread is a helper or core thread.
        ended[classify(pid, tid, t.name, undefined)] += t.ticks / TICKS_PER_SECOND;
        perThread.delete(tid);
        endedCount += 1;
      }
    }
    for (const tid of tids ?? []) {
      const task = readTask(pid, tid);
      if (!task) continue;
      perThread.set(tid, { ticks: task.ticks, name: task.name });
    }
    let rssBytes = 0;
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      rssBytes = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    } catch {
      rssBytes = samples.at(-1)?.rssBytes ?? 0;
    }
    const byThread = new Map([...perThread.entries()].map(([tid, t]) => [tid, t.ticks / TICKS_PER_SECOND]));
    return { t: Date.now(), rssBytes, cpu: emptyCpu(), byThread, ended: { ...ended }, ...(pinned ? { pinned } : {}) };
  };
  /** Halves the unpinned samples; a kept one carries the peak RSS of the one dropped before it. */
  const thin = (): void => {
    const kept: Sample[] = [];
    let peak = 0;
    let odd = false;
    for (const s of samples) {
      odd = !odd;
      if (!s.pinned && odd && s !== samples.at(-1)) {
        peak = Math.max(peak, s.rssBytes);
        continue;
      }
      s.rssBytes = Math.max(s.rssBytes, peak);
      peak = 0;
      kept.push(s);
    }
    samples.splice(0, samples.length, ...kept);
    stride *= 2;
  };
  const record = (s: Sample): Sample => {
    samples.push(s);
    if (samples.length >= maxSamples) thin();
    return s;
  };
  let peakSinceKept = 0;
  const onTimer = (): void => {
    tick += 1;
    const s = take(false);
    // A timer sample that is not kept still counts for the RSS peak of the next kept one.
    if (tick % stride !== 0) {
      peakSinceKept = Math.max(peakSinceKept, s.rssBytes);
      return;
    }
    s.rssBytes = Math.max(s.rssBytes, peakSinceKept);
    peakSinceKept = 0;
    record(s);
  };
  let workflowTid: number | undefined;
  /** The busiest "node" thread besides the main one is the workflow thread; re-decided as figures grow. */
  const classifyAll = (): void => {
    let best = -1;
    for (const [tid, t] of perThread) {
      if (tid === pid || classify(pid, tid, t.name, undefined) === 'core') continue;
      if (t.ticks > best) {
        best = t.ticks;
        workflowTid = tid;
      }
    }
    for (const sm of samples) {
      sm.cpu = { ...sm.ended };
      for (const [tid, v] of sm.byThread) sm.cpu[classify(pid, tid, perThread.get(tid)?.name ?? '', workflowTid)] += v;
    }
  };
  record(take(true));
  const timer = setInterval(onTimer, everyMs);
  timer.unref();
  return {
    samples,
    classified() {
      classifyAll();
      return samples;
    },
    sample: () => record(take(true)),
    at(t) {
      let best = samples[0]!;
      for (const s of samples) if (s.t <= t) best = s;
      return best;
    },
    maxRss(t0, t1) {
      let max = 0;
      for (const s of samples) if (s.t >= t0 && s.t <= t1) max = Math.max(max, s.rssBytes);
      return max;
    },
    stop: () => clearInterval(timer),
    endedThreads: () => endedCount,
    threadNames: () =>
      Object.fromEntries([...perThread.entries()].map(([tid, t]) => [`${tid} ${t.name}`, classify(pid, tid, t.name, workflowTid)])),
  };
}

function emptyCpu(): Record<ThreadClass, number> {
  return Object.fromEntries(THREAD_CLASSES.map((c) => [c, 0])) as Record<ThreadClass, number>;
}

/** CPU seconds per thread class between two samples. */
export function cpuBetween(a: Sample, b: Sample): Record<ThreadClass, number> {
  return Object.fromEntries(THREAD_CLASSES.map((c) => [c, b.cpu[c] - a.cpu[c]])) as Record<ThreadClass, number>;
}

/** The process whose command line contains `needle` (e.g. the dev server's database path), if any. */
export function findProcess(needle: string): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) return Number(entry);
    } catch {
      // gone, or not ours to read
    }
  }
  return undefined;
}

/** Total CPU seconds of a process (all threads, children not included). */
export function processCpu(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}
