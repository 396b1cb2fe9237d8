import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';

/** A long-running helper process (dev server, Dovecot) whose output goes to a log file. */
export interface ManagedChild {
  readonly child: ChildProcess;
  readonly logFile: string;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  readonly exited: Promise<number | string>;
  /** True once the process has exited. */
  hasExited(): boolean;
  /** Sends `signal`, waits for the exit, escalates to SIGKILL after `graceMs`. */
  terminate(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
  /** The last `lines` lines of the log file, for error messages. */
  logTail(lines?: number): string;
}

const live = new Set<ChildProcess>();
let hooksInstalled = false;

/**
 * Spawns `command` with stdout and stderr appended to `logFile`, and makes sure the child does
 * not outlive this process: it gets SIGTERM on 'exit', and on SIGINT/SIGTERM/SIGHUP when no other
 * handler takes care of that signal.
 * (A SIGKILL of this process cannot be caught; the child then stays behind.)
 */
export function spawnManaged(
  command: string,
  args: readonly string[],
  opts: { logFile: string; env?: NodeJS.ProcessEnv; cwd?: string },
): ManagedChild {
  installHooks();
  const fd = fs.openSync(opts.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(command, args, { stdio: ['ignore', fd, fd], env: opts.env ?? process.env, cwd: opts.cwd });
  } finally {
    // The child has its own copy of the descriptor.
    fs.closeSync(fd);
  }
  live.add(child);
  let exitedFlag = false;
  const exited = new Promise<number | string>((resolve) => {
    child.once('error', (err) => {
      exitedFlag = true;
      live.delete(child);
      fs.appendFileSync(opts.logFile, `\n[spawn error] ${err.message}\n`);
      resolve(`spawn error: ${err.message}`);
    });
    child.once('exit', (code, signal) => {
      exitedFlag = true;
      live.delete(child);
      resolve(code ?? signal ?? 'unknown');
    });
  });

  return {
    child,
    logFile: opts.logFile,
    exited,
    hasExited: () => exitedFlag,
    async terminate(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> {
      if (exitedFlag) return;
      child.kill(signal);
      let timer: NodeJS.Timeout | undefined;
      const killed = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          if (!exitedFlag) child.kill('SIGKILL');
          resolve();
        }, graceMs);
      });
      await Promise.race([exited, killed]);
      clearTimeout(timer);
      await exited;
    },
    logTail: (lines = 30) => tail(opts.logFile, lines),
  };
}

/** The last `lines` lines of a text file, or '' when it cannot be read. */
export function tail(file: string, lines = 30): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      // Another handler (e.g. a worker's graceful shutdown) owns the signal: the services must
      // stay up until it has finished, and the 'exit' hook stops them afterwards.
      if (process.listenerCount(signal) > 0) return;
      killAll();
      // Keep the default behaviour: die by the signal.
      process.kill(process.pid, signal);
    };
    process.once(signal, onSignal);
  }
}

function killAll(): void {
  for (const child of live) {
    try {
      child.kill('SIGTERM');
    } catch {
      // Already gone.
    }
  }
}
