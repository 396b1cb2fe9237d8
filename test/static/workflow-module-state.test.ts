/**
 * The workflow bundle preloads the workflow modules, so every workflow in a workflow thread shares
 * them (workers/workflow-bundle-options.ts). These tests keep that safe: the bundle really
 * preloads them, lint covers every shared module the bundle contains, and lint refuses state at
 * module scope there.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { workflowBundle } from '../support/workflow-bundle';

const root = path.resolve(__dirname, '../..');

interface LintConfigModule {
  WORKFLOW_LIB_FILES: string[];
  MODULE_STATE_RULE: Linter.RuleEntry;
}
const lintConfig = (): Promise<LintConfigModule> =>
  import(pathToFileURL(path.join(root, 'eslint.config.mjs')).href) as Promise<LintConfigModule>;

test('the workflow bundle preloads the workflow modules, and lint watches every shared module inside it', async () => {
  const code = readFileSync((await workflowBundle()).codePath, 'utf8');
  const preload = /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(code);
  assert.ok(preload, 'the bundle has a preloadModules function');
  assert.match(preload[1]!, /workflows\/index\.ts/, 'it preloads the workflows entry');

  const inBundle = [...new Set([...code.matchAll(/!\*\*\* \.\/(src\/[\w/.-]+\.ts) \*\*\*!/g)].map((m) => m[1]!))]
    .filter((file) => !file.endsWith('.workflow.ts'))
    .sort();
  assert.ok(inBundle.includes('src/platform/contract.ts'), `shared modules found in the bundle: ${inBundle.join(', ')}`);
  const { WORKFLOW_LIB_FILES } = await lintConfig();
  assert.deepEqual(inBundle, [...WORKFLOW_LIB_FILES].sort(), 'eslint.config.mjs WORKFLOW_LIB_FILES must list exactly these');

  const eslint = new ESLint({ cwd: root });
  for (const file of ['src/email/email.workflow.ts', 'src/email/email-run.workflow.ts', ...WORKFLOW_LIB_FILES]) {
    const rules = ((await eslint.calculateConfigForFile(file)) as Linter.Config).rules ?? {};
    assert.ok(rules['no-restricted-syntax'], `${file} is checked for module state`);
  }
});

test('lint refuses let, var and mutable collections at module scope in workflow modules; constants pass', async () => {
  const { MODULE_STATE_RULE } = await lintConfig();
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser as Linter.Parser },
        rules: { 'no-restricted-syntax': MODULE_STATE_RULE },
      },
    ],
  });
  const lint = async (source: string) =>
    (await eslint.lintText(source, { filePath: path.join(root, 'workflows/probe.ts') }))[0]!.messages.map((m) => m.message);

  const refused = await lint(
    [
      'let count = 0;',
      'export var seen = 0;',
      'export const cache = new Map<string, number>();',
      'const ids = new Set<string>();',
      'export function bump(id: string): number {',
      '  ids.add(id);',
      '  return ++count + seen + cache.size;',
      '}',
    ].join('\n'),
  );
  assert.equal(refused.length, 4, refused.join('\n'));
  assert.ok(refused.every((m) => m.startsWith('workflow modules are shared by every workflow')));

  const allowed = await lint(
    [
      "export const PASSING = Object.freeze(['fetched', 'parsed'] as const);",
      'export function count(xs: string[]): number {',
      '  let n = 0;',
      '  const local = new Map<string, number>();',
      '  for (const x of xs) local.set(x, ++n);',
      '  return local.size + PASSING.length;',
      '}',
    ].join('\n'),
  );
  assert.deepEqual(allowed, []);
});
