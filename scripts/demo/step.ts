import path from 'node:path';
import { tail } from '../../test/support/services/child-process';
import { projectRoot } from '../../test/support/services/tool-paths';

/** A failed demo step: what was being done, the cause, and the logs that explain it. */
export class DemoError extends Error {
  constructor(
    readonly what: string,
    message: string,
    readonly logFiles: readonly string[] = [],
  ) {
    super(message);
  }
}

/** Runs `fn`; any failure becomes a DemoError naming `what` and the logs to show. */
export async function step<T>(what: string, logFiles: readonly string[], fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof DemoError) throw err;
    throw new DemoError(what, firstLine(err), logFiles);
  }
}

/** One line per failure, then the end of each relevant log: enough to act on, no stack traces. */
export function describeFailure(err: unknown): string {
  if (!(err instanceof DemoError)) return `demo: FAILED: ${firstLine(err)}`;
  const lines = [`demo: FAILED while ${err.what}: ${err.message}`];
  for (const file of err.logFiles) {
    const text = tail(file, 15);
    if (!text) continue;
    lines.push(`  last lines of ${relative(file)}:`, ...text.split('\n').map((l) => `  | ${clip(l, 300)}`.trimEnd()));
  }
  return lines.join('\n');
}

/** Structured log lines can be kilobytes long; the start says enough. */
function clip(line: string, max: number): string {
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

export function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (
    text
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? 'unknown error'
  );
}

/** Paths as the user would type them from the project root. */
export function relative(file: string): string {
  const rel = path.relative(projectRoot, file);
  return rel.startsWith('..') ? file : rel;
}

/**
 * Polls `probe` until it returns something other than undefined/false. `abortIf` names a
 * reason to stop early (e.g. the worker died), so the demo does not sit out the whole timeout.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  opts: { timeoutMs: number; everyMs?: number; abortIf?: () => string | undefined },
): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  let lastError: unknown;
  for (;;) {
    const abort = opts.abortIf?.();
    if (abort) throw new Error(`${abort} while waiting for ${what}`);
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const last = lastError === undefined ? '' : ` (last error: ${firstLine(lastError)})`;
      throw new Error(`timed out after ${Math.round(opts.timeoutMs / 1000)} s waiting for ${what}${last}`);
    }
    await sleep(opts.everyMs ?? 500);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Things to stop, last started first, so the worker goes before the servers it talks to. */
export class Cleanup {
  private readonly tasks: Array<{ what: string; run: () => Promise<void>; silent: boolean }> = [];
  private running: Promise<void> | undefined;

  /** `silent`: housekeeping the user need not hear about. */
  add(what: string, run: () => Promise<void>, silent = false): void {
    this.tasks.push({ what, run, silent });
  }

  /** Idempotent: a second call (e.g. a signal during a failure) waits for the first. */
  runAll(report: (line: string) => void): Promise<void> {
    this.running ??= (async () => {
      const stopped: string[] = [];
      for (let task = this.tasks.pop(); task; task = this.tasks.pop()) {
        try {
          await task.run();
          if (!task.silent) stopped.push(task.what);
        } catch (err) {
          report(`could not stop ${task.what}: ${firstLine(err)}`);
        }
      }
      if (stopped.length > 0) report(`stopped ${stopped.join(', ')}`);
    })();
    return this.running;
  }
}
