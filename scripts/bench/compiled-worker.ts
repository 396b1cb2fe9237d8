/**
 * The bench measures the worker as production runs it: compiled (dist/). `bin/email-rag.js` runs
 * the TypeScript sources through tsx whenever dist/ is missing or older than a source file, and
 * such a worker holds about 140 MB more (tsx's compiled modules and source maps, webpack after
 * bundling the workflows at start) and starts slower: runs after a merge or an edit measured that
 * instead without saying so in their figures. So the bench builds dist/ first when it is stale,
 * unless tsx is what is to be measured (`--from-source`, EMAIL_RAG_FROM_SOURCE=1).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

export function ensureCompiled(log: (line: string) => void): void {
  if (process.env.EMAIL_RAG_FROM_SOURCE === '1') return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the launcher's own check, plain CommonJS
  const { compiledState } = require(path.join(root, 'bin', 'compiled.js')) as { compiledState(): { use: boolean; reason?: string } };
  const state = compiledState();
  if (state.use) return;
  log(
    `bench: ${state.reason ?? 'dist/ not usable'}: building it first, so the workers run compiled as in production (--from-source measures tsx)`,
  );
  // Its output on stderr: with --json, stdout carries the report alone.
  const built = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'build.ts')], {
    cwd: root,
    stdio: ['ignore', 2, 2],
  });
  if (built.status !== 0)
    throw new Error(`npm run build failed (exit ${built.status ?? built.signal}); the bench would measure the TypeScript sources`);
}
