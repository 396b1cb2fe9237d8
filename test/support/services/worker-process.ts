import fs from 'node:fs';
import path from 'node:path';
import { spawnManaged, type ManagedChild } from './child-process';

const root = path.resolve(__dirname, '../../..');

export interface WorkerProcess {
  managed: ManagedChild;
  /** SIGKILL, as a crash or an OOM kill would end it: no shutdown, no bookkeeping. */
  kill(): Promise<void>;
  /** SIGTERM, the graceful stop. */
  stop(): Promise<void>;
}

/**
 * The real worker as an operator runs it (`email-rag worker`), in its own process so it can be
 * killed. Resolves once it logged that it started (it bundles the workflows first).
 */
export async function startWorkerProcess(
  env: Record<string, string>,
  logFile: string,
  timeoutMs = 180_000,
  /** Flags for node itself, e.g. `--cpu-prof` (not allowed in NODE_OPTIONS). */
  nodeArgs: string[] = [],
  /** Where bin/email-rag.js is: this checkout, or a production install made from it. */
  installDir: string = root,
): Promise<WorkerProcess> {
  const offset = fs.existsSync(logFile) ? fs.statSync(logFile).size : 0;
  const managed = spawnManaged(process.execPath, [...nodeArgs, path.join(installDir, 'bin/email-rag.js'), 'worker'], {
    logFile,
    env: { ...process.env, ...env },
    cwd: installDir,
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = fs.readFileSync(logFile, 'utf8').slice(offset);
    if (log.includes('"message":"worker started"')) break;
    if (managed.hasExited()) throw new Error(`the worker exited before it started:\n${managed.logTail(20)}`);
    if (Date.now() > deadline) {
      await managed.terminate('SIGKILL');
      throw new Error(`the worker did not start within ${timeoutMs} ms:\n${managed.logTail(20)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    managed,
    kill: () => managed.terminate('SIGKILL', 5_000),
    stop: () => managed.terminate('SIGTERM', 40_000),
  };
}
