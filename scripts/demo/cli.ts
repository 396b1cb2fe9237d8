import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { spawnManaged, type ManagedChild } from '../../test/support/services/child-process';
import { projectRoot } from '../../test/support/services/tool-paths';
import { waitFor } from './step';

const BIN = path.join(projectRoot, 'bin', 'email-rag.js');

/** Runs a short command; resolves with its stdout, rejects with its stderr (the CLI's one-line error). */
export function runCommand(command: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = 90_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, cwd: projectRoot, timeout: timeoutMs, maxBuffer: 10 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (!err) {
        resolve(String(stdout).trimEnd());
        return;
      }
      const detail = String(stderr).trim() || String(stdout).trim() || err.message;
      reject(new Error(`${path.basename(command)} ${args.join(' ')} failed: ${detail}`));
    });
  });
}

/** `node bin/email-rag.js <args>` with its exit code and stdout, never rejecting (a command whose exit code is its answer). */
export function emailRagExit(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 180_000,
): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env, cwd: projectRoot, timeout: timeoutMs }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout: String(stdout).trimEnd() || String(stderr).trimEnd() });
    });
  });
}

/** `node bin/email-rag.js <args>`, the way an operator runs the CLI. */
export function emailRag(args: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  return runCommand(process.execPath, [BIN, ...args], env);
}

/**
 * Starts `email-rag worker` with its log in `logFile` and resolves once it reports that it polls
 * the task queue (bundling the workflows takes a while on a small machine).
 */
export function startWorker(env: NodeJS.ProcessEnv, logFile: string, timeoutMs = 120_000): Promise<ManagedChild> {
  return startEmailRagService(['worker'], env, logFile, (abortIf) =>
    waitFor('the worker to start', async () => readLog(logFile).includes('"message":"worker started"'), { timeoutMs, abortIf }),
  );
}

/**
 * A long-running `email-rag <args>` (worker, codec server) with its log in `logFile`; resolves once
 * `ready` does, and stops the process again when it does not.
 */
export async function startEmailRagService(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
  ready: (abortIf: () => string | undefined) => Promise<unknown>,
): Promise<ManagedChild> {
  fs.rmSync(logFile, { force: true });
  const child = spawnManaged(process.execPath, [BIN, ...args], { logFile, env, cwd: projectRoot });
  try {
    await ready(() => (child.hasExited() ? `email-rag ${args.join(' ')} exited` : undefined));
  } catch (err) {
    await child.terminate('SIGTERM', 5_000);
    throw err;
  }
  return child;
}

function readLog(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** A command line the user can paste into a POSIX shell. */
export function shellQuote(args: readonly string[]): string {
  return args.map((a) => (/^[A-Za-z0-9_./:=@%+,-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}
