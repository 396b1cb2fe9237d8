// @ts-check
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

/** What workflow code must never import: it has to stay deterministic and free of I/O. */
const IO_MODULES = [
  'mariadb',
  'imapflow',
  'mailparser',
  'nodemailer',
  'smtp-server',
  'openai',
  'arangojs',
  'html-to-text',
  '@qdrant/js-client-rest',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
  '@temporalio/testing',
];
const NODE_BUILTINS = [
  'node:*',
  'fs',
  'fs/*',
  'path',
  'os',
  'crypto',
  'child_process',
  'net',
  'http',
  'https',
  'dns',
  'tls',
  'stream',
  'util',
  'events',
];

/** lib/ modules inside the workflow bundle (checked by test/static/workflow-module-state.test.ts). */
export const WORKFLOW_LIB_FILES = [
  'src/platform/contract.ts',
  'src/platform/domain.ts',
  'src/triage/priority-rules.ts',
  'src/email/status-transitions.ts',
  'src/email/workflow-summary.ts',
];

/** Module-scope state in those files: refused (test/static/workflow-module-state.test.ts). */
export const MODULE_STATE_RULE = [
  'error',
  {
    selector: ':matches(Program, ExportNamedDeclaration) > VariableDeclaration[kind!="const"]',
    message: 'workflow modules are shared by every workflow: no let/var at module scope',
  },
  {
    selector:
      ':matches(Program, ExportNamedDeclaration) > VariableDeclaration > VariableDeclarator > NewExpression[callee.name=/^(Map|Set|WeakMap|WeakSet|Array)$/]',
    message: 'workflow modules are shared by every workflow: no mutable collection at module scope (use a frozen array or object)',
  },
];

export default tseslint.config(
  { ignores: ['node_modules/**', '.tools/**', '.local/**', 'dist/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'] })] },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's test()/describe() return promises the runner itself awaits.
        { allowForKnownSafeCalls: [{ from: 'package', name: ['test', 'describe', 'it', 'suite'], package: 'node:test' }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'import-x/no-cycle': 'error',
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: IO_MODULES.map((name) => ({ name, message: 'workflows must stay deterministic: no I/O libraries' })),
          patterns: [
            { group: NODE_BUILTINS, message: 'workflows must not use Node builtins' },
            {
              group: ['../activities', '../activities/*', '../adapters/*', '../ports/*', '../workers/*'],
              allowTypeImports: true,
              message: 'workflows import activities and ports as types only',
            },
          ],
        },
      ],
    },
  },
  {
    // The workflow bundle preloads these modules once per workflow thread and every workflow shares
    // them (workers/workflow-bundle-options.ts): state at module scope would leak from one
    // workflow into another and break replay. test/static/workflow-module-state.test.ts keeps the
    // list of lib/ files in step with what the bundle really contains.
    files: ['workflows/**/*.ts', ...WORKFLOW_LIB_FILES],
    rules: {
      'no-restricted-syntax': MODULE_STATE_RULE,
    },
  },
  {
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
