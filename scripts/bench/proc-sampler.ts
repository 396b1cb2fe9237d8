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
 */
import fs from 'node:fs';

export type ThreadClass = 'main' | 'workflow' | 'core' | 'helpers';
export const THREAD_CLASSES: ThreadClass[] = ['main', 'workflow', 'core', 'helpers'];

export interface Sample {
  t: number;
  rssBytes: number;
  /** Cumulative CPU seconds per thread class (threads that ended keep their last value). */
  cpu: Record<ThreadClass, number>;
  /** Cumulative CPU seconds per thread id. */
  byThread: Map<number, number>;
}

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
  threadNames(): Record<string, ThreadClass>;
}

export function sampleProcess(pid: number, everyMs = 100): ProcSampler {
  const perThread = new Map<number, { ticks: number; name: string }>();
  const samples: Sample[] = [];
  const sample = (): Sample => {
    let tids: number[] = [];
    try {
      tids = fs.readdirSync(`/proc/${pid}/task`).map(Number);
    } catch {
      // the process ended: keep the last values
    }
    for (const tid of tids) {
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
    const s = { t: Date.now(), rssBytes, cpu: emptyCpu(), byThread };
    samples.push(s);
    return s;
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
      sm.cpu = emptyCpu();
      for (const [tid, v] of sm.byThread) sm.cpu[classify(pid, tid, perThread.get(tid)?.name ?? '', workflowTid)] += v;
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  timer.unref();
  return {
    samples,
    classified() {
      classifyAll();
      return samples;
    },
    sample,
    at(t) {
      let best = samples[0]!;
      for (const s of samples) if (s.t <= t) best = s;
      return best;
    },
    maxRss(t0, t1) {
      return Math.max(0, ...samples.filter((s) => s.t >= t0 && s.t <= t1).map((s) => s.rssBytes));
    },
    stop: () => clearInterval(timer),
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
