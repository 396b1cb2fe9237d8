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
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
