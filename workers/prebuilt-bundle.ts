import fs from 'node:fs';
import path from 'node:path';

/**
 * The workflow bundle `npm run build` wrote beside the compiled worker (dist/workflow-bundle.js),
 * or undefined when the worker runs from the TypeScript sources and must bundle at start.
 */
export function prebuiltWorkflowBundle(): { codePath: string } | undefined {
  if (!__filename.endsWith('.js')) return undefined;
  const codePath = path.resolve(__dirname, '..', 'workflow-bundle.js');
  return fs.existsSync(codePath) ? { codePath } : undefined;
}

/** One line for the worker's log: how it runs, and why not compiled when it is not. */
export function startMode(bundle: { codePath: string } | undefined): string {
  if (bundle) return 'compiled JavaScript (dist/) with the prebuilt workflow bundle';
  const why = process.env.EMAIL_RAG_RUNS_FROM ?? 'sources';
  return `TypeScript through tsx, bundling the workflows now (${why}); npm run build starts faster and uses less memory`;
}
