/**
 * The per-worker part of the bench report: each worker process's memory, CPU and share of the
 * work. The report's own rss and cpu figures are these summed over the workers.
 */
import type { CpuBreakdown } from './cpu-attribution';

export interface WorkerFigures {
  index: number;
  pid: number;
  rss: { idle: number; waiting: number; duringIntake: number; duringApproval: number };
  cpu: { intake: CpuBreakdown; sends: CpuBreakdown };
  /** Activities (last attempt) per queue step that this worker ran, from the Temporal histories. */
  activities: Record<string, number>;
  workflowTasks: number;
}

const toMB = (bytes: number) => Math.round(bytes / 1024 / 1024);
const msPer = (cpuSeconds: number, n: number) => (cpuSeconds * 1000) / Math.max(1, n);
const fixed = (cpuSeconds: number, n: number) => msPer(cpuSeconds, n).toFixed(1);

/** For --json: per worker, RSS in MB, CPU in ms per email of the whole run (so the workers' figures add up). */
export function workersJson(workers: WorkerFigures[], emails: number, approvals: number): unknown[] {
  return workers.map((w) => ({
    index: w.index,
    pid: w.pid,
    rssMB: Object.fromEntries(Object.entries(w.rss).map(([k, v]) => [k, toMB(v)])),
    cpuMsPerEmail: {
      intake: { total: msPer(w.cpu.intake.total, emails), orchestration: msPer(w.cpu.intake.orchestration, emails) },
      sends: { total: msPer(w.cpu.sends.total, approvals), orchestration: msPer(w.cpu.sends.orchestration, approvals) },
    },
    activities: w.activities,
    activityCount: Object.values(w.activities).reduce((a, b) => a + b, 0),
    workflowTasks: w.workflowTasks,
  }));
}

/** Text lines, one block per worker; nothing for a single worker (the totals say it all). */
export function workerLines(workers: WorkerFigures[], emails: number, approvals: number, unattributed: number): string[] {
  if (workers.length < 2) return [];
  const activities = (w: WorkerFigures) => Object.values(w.activities).reduce((a, b) => a + b, 0);
  const allActivities = workers.reduce((a, w) => a + activities(w), 0);
  const allTasks = workers.reduce((a, w) => a + w.workflowTasks, 0);
  const share = (n: number, of: number) => `${n} (${((100 * n) / Math.max(1, of)).toFixed(0)} %)`;
  return workers.flatMap((w) => [
    `worker ${w.index} RSS idle / waiting / peaks`.padEnd(47) +
      `${toMB(w.rss.idle)} / ${toMB(w.rss.waiting)} / ${toMB(w.rss.duringIntake)} / ${toMB(w.rss.duringApproval)} MB (pid ${w.pid})`,
    `  its CPU per email of the run, intake / send`.padEnd(47) +
      `${fixed(w.cpu.intake.total, emails)} / ${fixed(w.cpu.sends.total, approvals)} ms ` +
      `(orchestration ${fixed(w.cpu.intake.orchestration, emails)} / ${fixed(w.cpu.sends.orchestration, approvals)} ms)`,
    `  activities / workflow tasks it ran`.padEnd(47) +
      `${share(activities(w), allActivities)}: ${Object.entries(w.activities)
        .sort()
        .map(([s, n]) => `${s} ${n}`)
        .join(', ')} / ${share(w.workflowTasks, allTasks)}`,
    ...(w.index === workers.length && unattributed > 0
      ? [`  activities found on no worker (no history)`.padEnd(47) + String(unattributed)]
      : []),
  ]);
}
