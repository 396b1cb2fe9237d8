/**
 * A real OpenAI-compatible model server: llama.cpp's `llama-server` with SmolLM2-135M-Instruct
 * (scripts/setup-llm.sh), on a free loopback port, one slot, its output in `<dir>/llama-server.log`.
 * The model is tiny and its answers poor; what is real is the protocol, the JSON-schema constraint
 * (llama.cpp turns `response_format: json_schema` into a grammar), the time it takes and its errors.
 */
import path from 'node:path';
import { startHealthCheckedServer } from './embedder';
import type { ManagedChild } from './child-process';
import { realModelServer } from './tool-paths';

export interface LlamaServer {
  /** `http://127.0.0.1:PORT/v1`, for LLM_BASE_URL. */
  baseUrl: string;
  /** The name it serves the model under (LLM_MODEL). */
  model: string;
  /** The context window it runs with, in tokens. */
  contextTokens: number;
  /** The settings that point the product at it. */
  env: Record<string, string>;
  managed: ManagedChild;
  stop(): Promise<void>;
}

export const REAL_MODEL_NAME = 'smollm2-135m-instruct';

export async function startLlamaServer(opts: { dir: string; contextTokens?: number; threads?: number }): Promise<LlamaServer> {
  const found = realModelServer();
  if (!found) throw new Error('llama-server or its model is missing: run `npm run setup:llm`');
  const contextTokens = opts.contextTokens ?? 4096;
  const { managed, port } = await startHealthCheckedServer({
    what: 'llama-server',
    command: found.server,
    args: (p) => [
      ...['--model', found.model, '--alias', REAL_MODEL_NAME, '--host', '127.0.0.1', '--port', String(p)],
      // One slot: the window is all one request's; the chat template from the model file (--jinja).
      ...['--ctx-size', String(contextTokens), '--parallel', '1', '--threads', String(opts.threads ?? 2), '--jinja', '--no-webui'],
      // An answer is cut at 256 tokens: a tiny model may otherwise fill the window with one string.
      ...['--n-predict', '256'],
    ],
    logFile: path.join(opts.dir, 'llama-server.log'),
    // Loading 98 MB of weights takes a second; a busy machine, longer.
    startTimeoutMs: 120_000,
  });
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  return {
    baseUrl,
    model: REAL_MODEL_NAME,
    contextTokens,
    env: { LLM_BASE_URL: baseUrl, LLM_MODEL: REAL_MODEL_NAME, LLM_API_KEY: 'not-needed' },
    managed,
    stop: () => managed.terminate('SIGTERM', 5_000),
  };
}
