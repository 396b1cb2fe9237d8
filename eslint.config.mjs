// @ts-check
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import regexp from 'eslint-plugin-regexp';

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

/** Every module of the workflow bundle: the bundle entry and each feature's `*.workflow.ts`. */
export const WORKFLOW_FILES = ['workflows/**/*.ts', 'src/**/*.workflow.ts'];

/**
 * Shared modules without the `.workflow.ts` suffix that the workflow bundle contains too (checked by
 * test/static/workflow-module-state.test.ts).
 */
export const WORKFLOW_LIB_FILES = [
  'src/platform/contract.ts',
  'src/platform/workflow-summary.ts',
  // The email's status words, its input, its Web UI lines, and its status steps.
  'src/email/email-status.ts',
  'src/email/email-input.ts',
  'src/email/email-display.ts',
  'src/email/status-transitions.ts',
  // Priorities and their aging.
  'src/triage/priorities.ts',
  'src/triage/priority.ts',
  // A case's status words (the case workflow's view).
  'src/cases/case-status.ts',
  // A draft's status words, which the email's status shares.
  'src/drafting/drafting.contract.ts',
  // The shapes of internal source ids, which an approved text must not name.
  'src/drafting/source-ids.ts',
  // The email's audit event types, named by its workflow phases.
  'src/email/email.contract.ts',
  // What the case clock finds due (its workflow acts on each kind).
  'src/cases/cases.contract.ts',
  // The replay's workflow type, query, task queue suffix and priority.
  'src/replay/replay.contract.ts',
];

/** Adapters, known by their suffix: the technology they speak to (`*.mariadb.ts`, `*.temporal.ts`, …). */
const ADAPTER_SUFFIXES = [
  'mariadb',
  'temporal',
  'imap',
  'smtp',
  'openai',
  'qdrant',
  'arango',
  'local',
  'offline',
  'file',
  'webhook',
  'http',
  'bcrypt',
].map((kind) => `**/*.${kind}`);

/**
 * The features under src/ (the command line's shell, cli/, starts the processes beside workers/).
 * test/static/feature-boundaries.test.ts checks that this list names every feature folder.
 */
const FEATURES = [
  'business-time',
  'archive-import',
  'attachments',
  'autonomy',
  'cases',
  'drafting',
  'email',
  'guidance',
  'mailboxes',
  'operations',
  'privacy',
  'replay',
  'retrieval',
  'review-inbox',
  'shadow',
  'triage',
];

/** A feature's face: what the others may import (what loads a driver in index.adapters.ts, the workflow bundle's part in index.workflow.ts). */
const FACE = ['./index.ts', './index.adapters.ts', './index.workflow.ts'];

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

const TIMED = 'a timed assertion: speed is measured by `npm run bench`, a test asserts outcomes and deterministic bounds';
/** `Date.now() - started < N`, `performance.now() - t0 <= N`, `process.hrtime.bigint() - t > N`, and `assert.ok(ms < N)`. */
export const TIMED_ASSERTION_RULE = [
  {
    selector:
      "BinaryExpression[operator=/^[<>]=?$/] > BinaryExpression[operator='-'] > CallExpression[callee.property.name=/^(now|bigint)$/]",
    message: TIMED,
  },
  {
    selector:
      "CallExpression[callee.object.name='assert'] BinaryExpression[operator=/^[<>]=?$/] > :matches(Identifier[name=/^(ms|elapsed|elapsedMs|took|tookMs|duration|durationMs|wallMs)$/], MemberExpression[property.name=/^(ms|elapsed|elapsedMs|took|tookMs|duration|durationMs|wallMs)$/])",
    message: TIMED,
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
    files: WORKFLOW_FILES,
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: IO_MODULES.map((name) => ({ name, message: 'workflows must stay deterministic: no I/O libraries' })),
          patterns: [
            { group: NODE_BUILTINS, message: 'workflows must not use Node builtins' },
            {
              group: ['**/activities', '**/activities/*', '**/*.activities', '**/*.port', ...ADAPTER_SUFFIXES, '**/workers/*'],
              allowTypeImports: true,
              message: 'workflows import activities and ports as types only, and no adapter',
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
    // list of shared files in step with what the bundle really contains.
    files: [...WORKFLOW_FILES, ...WORKFLOW_LIB_FILES],
    rules: {
      'no-restricted-syntax': MODULE_STATE_RULE,
    },
  },
  {
    // The house's boundaries: platform/ is what every feature shares and depends on no feature; the
    // features never reach up into the registries and processes that assemble them, nor into
    // scripts or tests; a feature, and each process that assembles features, uses another feature
    // through its face only (test/static/feature-boundaries.test.ts reads the same rules from
    // every import, `import type` included).
    files: ['src/**/*.ts', 'activities/**/*.ts', 'workers/**/*.ts', 'cli/**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './src/platform',
              // The activity registry's type is named by the workflow side's activity profiles, as a type only
              // (the workflow rules above refuse more).
              from: [...FEATURES.map((feature) => `./src/${feature}`), './cli', './workers', './workflows'],
              message: 'platform/ is shared by every feature and imports none of them',
            },
            ...FEATURES.map((feature) => ({
              target: `./src/${feature}`,
              from: ['./activities', './workers', './workflows', './cli', './scripts', './test'],
              message: 'a feature does not depend on the worker process, the workflow bundle entry, scripts or tests',
            })),
            ...[...FEATURES.map((feature) => `./src/${feature}`), './activities', './workers', './cli'].flatMap((target) =>
              FEATURES.filter((feature) => target !== `./src/${feature}`).map((feature) => ({
                target,
                from: `./src/${feature}`,
                except: FACE,
                message: `use ${feature} through its face (src/${feature}/index.ts; index.adapters.ts for what loads a driver; index.workflow.ts in the workflow bundle), not its insides`,
              })),
            ),
          ],
        },
      ],
    },
  },
  {
    // Product code reads hostile mail: a regular expression that can backtrack super-linearly is a
    // denial of service waiting for its input. Refused here, statically, instead of timing tests on
    // hostile text (speed lives in the benches: `npm run bench -- --hostile`).
    files: ['src/**/*.ts'],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
      'regexp/no-misleading-capturing-group': 'error',
    },
  },
  {
    // Speed lives in the benches (`npm run bench`), never in a test: an assertion on elapsed time
    // fails on a loaded machine and proves nothing on a fast one. A test of a hostile input asserts
    // a deterministic bound (test/support/regex-linearity.ts); a test of a timeout the product
    // enforces asserts the outcome that says the timeout ended it. One that must still compare the
    // clock says why in an eslint-disable comment naming this rule.
    files: ['test/**/*.test.ts'],
    rules: {
      'no-restricted-syntax': ['error', ...TIMED_ASSERTION_RULE],
    },
  },
  {
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
