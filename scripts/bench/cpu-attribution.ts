import { cpuBetween, type Sample, type ThreadClass } from './proc-sampler';
import type { StepRow } from './pipeline';

export interface CpuBreakdown {
  /** Main-thread CPU seconds attributed to each step (see attributeMainThread). */
  steps: Record<string, number>;
  /** Main-thread CPU while no step's queue row was running: local activities, SDK glue, GC pauses. */
  mainOutsideSteps: number;
  /** Workflow sandboxes (worker threads) + the SDK's Rust core: Temporal orchestration. */
  orchestration: number;
  /** All threads: V8 helpers and libuv's pool included. */
  total: number;
  byThread: Record<ThreadClass, number>;
}

/**
 * Splits the worker's CPU time in [t0, t1]. The other threads are classified by name (see
 * proc-sampler). The JavaScript main thread runs every activity, so each sampling interval's
 * main-thread CPU is divided among the steps whose queue rows ran in that interval, in proportion
 * to their running time inside it; an interval with no running row counts as outside the steps.
 * A step waiting on I/O takes a share too, so the split is an estimate, the totals are exact.
 */
export function attributeCpu(samples: Sample[], rows: StepRow[], t0: number, t1: number): CpuBreakdown {
  const window = samples.filter((s) => s.t >= t0 && s.t <= t1);
  const steps: Record<string, number> = {};
  let outside = 0;
  for (let i = 1; i < window.length; i++) {
    const a = window[i - 1]!;
    const b = window[i]!;
    const main = b.cpu.main - a.cpu.main;
    if (main <= 0) continue;
    const overlap = new Map<string, number>();
    let sum = 0;
    for (const r of rows) {
      const ms = Math.min(r.finished, b.t) - Math.max(r.started, a.t);
      if (ms <= 0) continue;
      overlap.set(r.step, (overlap.get(r.step) ?? 0) + ms);
      sum += ms;
    }
    if (sum === 0) {
      outside += main;
      continue;
    }
    for (const [step, ms] of overlap) steps[step] = (steps[step] ?? 0) + (main * ms) / sum;
  }
  const first = window[0];
  const last = window.at(-1);
  const byThread = first && last ? cpuBetween(first, last) : { main: 0, workflow: 0, core: 0, helpers: 0 };
  return {
    steps,
    mainOutsideSteps: outside,
    orchestration: byThread.workflow + byThread.core,
    total: Object.values(byThread).reduce((x, y) => x + y, 0),
    byThread,
  };
}

/** The breakdowns of several worker processes added up (the fleet's CPU). */
export function sumBreakdowns(parts: CpuBreakdown[]): CpuBreakdown {
  const add = (a: Record<string, number>, b: Record<string, number>) => {
    const out = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  return parts.reduce<CpuBreakdown>(
    (sum, c) => ({
      steps: add(sum.steps, c.steps),
      mainOutsideSteps: sum.mainOutsideSteps + c.mainOutsideSteps,
      orchestration: sum.orchestration + c.orchestration,
      total: sum.total + c.total,
      byThread: add(sum.byThread, c.byThread) as Record<ThreadClass, number>,
    }),
    { steps: {}, mainOutsideSteps: 0, orchestration: 0, total: 0, byThread: { main: 0, workflow: 0, core: 0, helpers: 0 } },
  );
}

/**
 * attributeCpu for each worker process, with the queue rows of the activities it ran (`owner`:
 * row key → pid, from worker-spread); a row of unknown owner counts for every worker, as with one.
 */
export function attributeFleetCpu(
  workers: Array<{ pid: number; samples: Sample[] }>,
  rows: StepRow[],
  owner: Map<string, number>,
  t0: number,
  t1: number,
): { perWorker: CpuBreakdown[]; total: CpuBreakdown } {
  const perWorker = workers.map((w) =>
    attributeCpu(
      w.samples,
      rows.filter((r) => (owner.get(r.key) ?? w.pid) === w.pid),
      t0,
      t1,
    ),
  );
  return { perWorker, total: sumBreakdowns(perWorker) };
}
