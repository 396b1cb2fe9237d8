/**
 * `npm run build`: compiles the product to dist/ (tsc, tsconfig.build.json), copies the
 * migrations beside it and writes the prebuilt workflow bundles (dist/workflow-bundle*.js: one
 * plain, one with the encrypting failure converter for PAYLOAD_KEYS), so the worker starts without
 * tsx and without webpack. Skips the work when dist/ is fresh (--force
 * rebuilds anyway).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { WORKFLOW_BUNDLE_FILES, writeWorkflowBundle, type WorkflowBundleKind } from '../workers/prebuilt-bundle';

// Plain CommonJS shared with bin/email-rag.js, which must decide before any TypeScript loads.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const compiled = require('../bin/compiled.js') as {
  compiledState(): { use: boolean; reason?: string };
  STAMP: string;
  dist: string;
  root: string;
};

async function main(): Promise<void> {
  const { dist, root, STAMP } = compiled;
  const state = compiled.compiledState();
  if (state.use && !process.argv.includes('--force')) {
    console.log('build: dist/ is up to date');
    return;
  }
  const startedAt = new Date();
  const t0 = Date.now();
  fs.rmSync(dist, { recursive: true, force: true });
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], {
    cwd: root,
    stdio: 'inherit',
  });
  const tscMs = Date.now() - t0;
  // src/platform/migrate.mariadb.ts finds them relative to itself: dist/src/platform -> dist/migrations.
  fs.cpSync(path.join(root, 'migrations'), path.join(dist, 'migrations'), { recursive: true });
  // The review inbox reads its templates and stylesheet relative to itself.
  fs.cpSync(path.join(root, 'src', 'review-inbox', 'views'), path.join(dist, 'src', 'review-inbox', 'views'), { recursive: true });
  // The injection guard's shipped attack intents (src/drafting/injection-intents.ts reads them beside itself).
  fs.cpSync(path.join(root, 'src', 'drafting', 'data'), path.join(dist, 'src', 'drafting', 'data'), { recursive: true });
  // The built-in spam check's learnt word list (src/triage/spam-words.ts reads it beside itself).
  fs.cpSync(path.join(root, 'src', 'triage', 'data'), path.join(dist, 'src', 'triage', 'data'), { recursive: true });
  // The local embedder's server, so a deployment of dist/ can name it in EMBEDDER_COMMAND.
  fs.cpSync(path.join(root, 'embedder'), path.join(dist, 'embedder'), { recursive: true });
  const t1 = Date.now();
  // Bundled from dist/ itself, so the bundles hold exactly the compiled workflow code.
  for (const kind of Object.keys(WORKFLOW_BUNDLE_FILES) as WorkflowBundleKind[]) await writeWorkflowBundle(dist, dist, kind);
  const bundleMs = Date.now() - t1;
  // Stamped with the start time: a source saved while the build ran makes dist/ stale again.
  fs.writeFileSync(STAMP, `${JSON.stringify({ builtAt: startedAt.toISOString(), node: process.version })}\n`);
  fs.utimesSync(STAMP, startedAt, startedAt);
  console.log(`build: dist/ written (tsc ${(tscMs / 1000).toFixed(1)} s, workflow bundles ${(bundleMs / 1000).toFixed(1)} s)`);
}

main().catch((err: unknown) => {
  console.error(`build failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
