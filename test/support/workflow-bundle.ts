import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundleOptions } from '../../workers/workflow-bundle-options';

const root = path.resolve(__dirname, '../..');

function hashDir(h: ReturnType<typeof createHash>, dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    h.update(entry.name);
    if (entry.isDirectory()) hashDir(h, full);
    else h.update(readFileSync(full));
  }
}

function sourceHash(): string {
  const h = createHash('sha256');
  for (const dir of ['workflows', 'src', 'activities']) hashDir(h, path.join(root, dir));
  // The bundler's options; the rest of workers/ does not go into the bundle.
  h.update(readFileSync(path.join(root, 'workers', 'workflow-bundle-options.ts')));
  h.update(readFileSync(path.join(root, 'package-lock.json')));
  return h.digest('hex').slice(0, 16);
}

/**
 * Bundles the workflows once and keeps the bundle on disk, keyed by the sources, so the test
 * files (each its own process) do not each pay for webpack.
 */
export async function workflowBundle(): Promise<{ codePath: string }> {
  const dir = path.join(root, '.local', 'bundles');
  const codePath = path.join(dir, `workflows-${sourceHash()}.js`);
  if (!existsSync(codePath)) {
    const { code } = await bundleWorkflowCode({ ...workflowBundleOptions(require.resolve('../../workflows')), logger: undefined });
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${codePath}.tmp-${process.pid}`, code);
    // rename is atomic: a concurrent reader never sees half a bundle.
    renameSync(`${codePath}.tmp-${process.pid}`, codePath);
  }
  return { codePath };
}
