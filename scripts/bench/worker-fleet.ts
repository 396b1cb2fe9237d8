/**
 * The bench's worker processes: N copies of `email-rag worker` with the same env (so the same task
 * queues) against one stack, each sampled from /proc. The first logs to worker.log, the others to
 * worker-2.log, worker-3.log, ... RSS summed over the fleet is taken at the first worker's sample
 * times (the others' nearest earlier sample), so a peak of the sum is a peak the machine really held.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startWorkerProcess, type WorkerProcess } from '../../test/support/services/worker-process';
import { sampleProcess, type ProcSampler } from './proc-sampler';

export interface FleetMember {
  /** 1-based, as in the log file names. */
  index: number;
  pid: number;
  logFile: string;
  process: WorkerProcess;
  proc: ProcSampler;
}

export interface WorkerFleet {
  members: FleetMember[];
  /** 'compiled (dist/)' or 'tsx', from the first worker's log. */
  mode: string;
  /** From the first spawn until every worker logged that it started. */
  startMs: number;
  /** Takes a sample of every worker now. */
  sample(): void;
  /** RSS of every worker now, and their sum. */
  rssNow(): { perWorker: number[]; sum: number };
  /** Largest RSS of each worker, and largest sum, between t0 and t1. */
  maxRss(t0: number, t1: number): { perWorker: number[]; sum: number };
  /** Ends the sampling (the processes keep running). */
  stopSampling(): void;
  /** SIGTERM to every worker, waits for all to exit. */
  stop(): Promise<void>;
}

export function workerLogFile(dir: string, index: number): string {
  return path.join(dir, index === 1 ? 'worker.log' : `worker-${index}.log`);
}

/**
 * Starts the workers one after another: each bundles or loads the workflows at start, and starting
 * them together on a small machine only makes each start slower. If one fails, the started ones stop.
 */
export async function startWorkerFleet(
  count: number,
  env: Record<string, string>,
  dir: string,
  nodeArgs: string[] = [],
): Promise<WorkerFleet> {
  const started: Array<{ index: number; logFile: string; process: WorkerProcess }> = [];
  const t0 = Date.now();
  try {
    for (let index = 1; index <= count; index++) {
      const logFile = workerLogFile(dir, index);
      started.push({ index, logFile, process: await startWorkerProcess(env, logFile, undefined, nodeArgs) });
    }
  } catch (err) {
    await Promise.all(started.map((w) => w.process.stop().catch(() => undefined)));
    throw err;
  }
  const startMs = Date.now() - t0;
  const members: FleetMember[] = started.map((w) => {
    const pid = w.process.managed.child.pid as number;
    return { ...w, pid, proc: sampleProcess(pid) };
  });
  const firstLog = fs.readFileSync(workerLogFile(dir, 1), 'utf8');
  const mode = /worker runs compiled/.test(firstLog) ? 'compiled (dist/)' : 'tsx';

  const maxRss = (t0: number, t1: number) => {
    const perWorker = members.map((m) => m.proc.maxRss(t0, t1));
    const ticks = members[0]!.proc.samples.filter((s) => s.t >= t0 && s.t <= t1);
    const sum = Math.max(0, ...ticks.map((s) => s.rssBytes + members.slice(1).reduce((a, m) => a + m.proc.at(s.t).rssBytes, 0)));
    return { perWorker, sum };
  };
  return {
    members,
    mode,
    startMs,
    sample: () => members.forEach((m) => m.proc.sample()),
    rssNow() {
      const perWorker = members.map((m) => m.proc.sample().rssBytes);
      return { perWorker, sum: perWorker.reduce((a, b) => a + b, 0) };
    },
    maxRss,
    stopSampling: () => members.forEach((m) => m.proc.stop()),
    stop: async () => {
      await Promise.all(members.map((m) => m.process.stop().catch(() => undefined)));
    },
  };
}
