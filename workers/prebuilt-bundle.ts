import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { temporalDataConverter } from '../src/platform/temporal-connection';
import type { Config } from '../src/config';
import { workflowBundleOptions } from './workflow-bundle-options';

/**
 * The two workflow bundles `npm run build` writes beside the compiled worker. A bundle fixes the
 * failure converter that runs inside the workflow sandbox, so a worker with PAYLOAD_KEYS needs the
 * one built with the encrypting converter (src/platform/failure-converter.ts): with the plain one, a
 * failure raised in workflow code (a poll run that ends on an IMAP error naming the folder, say)
 * would reach the history with its message in plain text. Without keys the plain bundle keeps
 * failure messages readable, as they are when the worker bundles from the sources.
 */
export const WORKFLOW_BUNDLE_FILES = {
  plain: 'workflow-bundle.js',
  encryptedFailures: 'workflow-bundle-encrypted-failures.js',
} as const;

export type WorkflowBundleKind = keyof typeof WORKFLOW_BUNDLE_FILES;

/** Which bundle a worker with this configuration runs: the same converter the bundler would get from its data converter. */
export function workflowBundleKind(config: Config): WorkflowBundleKind {
  return temporalDataConverter(config)?.failureConverterPath ? 'encryptedFailures' : 'plain';
}

/**
 * Writes one bundle into `outDir`. `sourceRoot` holds workflows/ and src/ (dist/ for the build,
 * the TypeScript sources in tests); the failure converter is the one temporalDataConverter names.
 */
export async function writeWorkflowBundle(sourceRoot: string, outDir: string, kind: WorkflowBundleKind): Promise<string> {
  const failureConverterPath =
    kind === 'encryptedFailures' ? require.resolve(path.join(sourceRoot, 'src', 'platform', 'failure-converter')) : undefined;
  const { code } = await bundleWorkflowCode({
    ...workflowBundleOptions(require.resolve(path.join(sourceRoot, 'workflows'))),
    ...(failureConverterPath ? { failureConverterPath } : {}),
    logger: undefined,
  });
  const codePath = path.join(outDir, WORKFLOW_BUNDLE_FILES[kind]);
  fs.writeFileSync(codePath, code);
  return codePath;
}

/**
 * The prebuilt bundle for this configuration, or undefined when the worker runs from the
 * TypeScript sources (or the bundle is missing) and must bundle at start. `dir` defaults to dist/.
 */
export function prebuiltWorkflowBundle(config: Config, dir?: string): { codePath: string } | undefined {
  if (dir === undefined && !__filename.endsWith('.js')) return undefined;
  const codePath = path.resolve(dir ?? path.join(__dirname, '..'), WORKFLOW_BUNDLE_FILES[workflowBundleKind(config)]);
  return fs.existsSync(codePath) ? { codePath } : undefined;
}

/** One line for the worker's log: how it runs, and why not compiled when it is not. */
export function startMode(bundle: { codePath: string } | undefined): string {
  if (bundle) return `compiled JavaScript (dist/) with the prebuilt workflow bundle ${path.basename(bundle.codePath)}`;
  const why = process.env.EMAIL_RAG_RUNS_FROM ?? 'sources';
  return `TypeScript through tsx, bundling the workflows now (${why}); npm run build starts faster and uses less memory`;
}
