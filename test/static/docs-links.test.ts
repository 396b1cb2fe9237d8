/**
 * The docs name only files that exist (scripts/check-docs.ts, also the last step of `npm run
 * check`): what the parser takes for a reference, and the real README.md, CONTRIBUTING.md and
 * docs/ checked against the repository.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { anchorsOf, checkDocs, isRepoPath, referencesIn, slug } from '../../scripts/check-docs';

const root = path.resolve(__dirname, '../..');
const TOP_LEVEL = new Set(['src', 'docs', 'deploy', 'scripts', 'test', 'README.md']);

test('a relative Markdown link is a reference, with its anchor; web addresses and pure anchors are not', () => {
  const markdown = [
    'See [deploying](deploying.md) and [the start](../README.md#start-here).',
    'Also [Temporal](https://temporal.io), [mail](mailto:a@example.com) and [below](#below).',
    '![screenshot](review-inbox.png)',
  ].join('\n');
  assert.deepEqual(referencesIn(markdown, TOP_LEVEL), [
    { line: 1, target: 'deploying.md', kind: 'link' },
    { line: 1, target: '../README.md#start-here', kind: 'link' },
    { line: 3, target: 'review-inbox.png', kind: 'link' },
  ]);
});

test('a link whose text wraps onto the next line is found on the line it starts on', () => {
  assert.deepEqual(referencesIn('intro\nthe [queue\nmodel](queue-model.md#dead-letters).', TOP_LEVEL), [
    { line: 2, target: 'queue-model.md#dead-letters', kind: 'link' },
  ]);
});

test('a repository path in backticks is a reference: a file, a folder, a folder without its slash', () => {
  const markdown = 'The workflow is `src/email/email.workflow.ts`;\nthe stack `deploy/compose.yaml`, the docs `docs/` and `test/e2e`.';
  assert.deepEqual(
    referencesIn(markdown, TOP_LEVEL).map((r) => [r.line, r.target, r.kind]),
    [
      [1, 'src/email/email.workflow.ts', 'path'],
      [2, 'deploy/compose.yaml', 'path'],
      [2, 'docs/', 'path'],
      [2, 'test/e2e', 'path'],
    ],
  );
});

test('commands, wildcards, placeholders and names outside the repository are not paths', () => {
  for (const span of [
    'sh scripts/backup.sh', // a command
    'src/**/*.workflow.ts', // a wildcard
    'src/<feature>/<feature>.contract.ts', // a placeholder
    'test/replay/histories/{a,b}/',
    'src/…/email.ts',
    'src/.../email.ts',
    'text/plain', // a MIME type: `text` is no top-level entry
    '/usr/bin/chromium',
    'email.workflow.ts', // a bare file name: no slash
    'https://temporal.io/x.md',
  ]) {
    assert.equal(isRepoPath(span, TOP_LEVEL), false, span);
  }
  assert.equal(isRepoPath('scripts/backup.sh', TOP_LEVEL), true);
});

test('fenced code blocks and links written inside code spans are not references', () => {
  const markdown = [
    '```sh',
    'cat src/missing.ts  # `src/missing.ts`',
    '[x](missing.md)',
    '```',
    'Write `[text](path.md)` for a link.',
  ].join('\n');
  assert.deepEqual(referencesIn(markdown, TOP_LEVEL), []);
});

test("headings give GitHub's anchors, a repeated one numbered, headings in code blocks none", () => {
  assert.equal(
    slug('OAuth2 sign-in (Microsoft 365, Gmail, any OAuth2 provider)'),
    'oauth2-sign-in-microsoft-365-gmail-any-oauth2-provider',
  );
  assert.equal(slug("Personal data out of Temporal's history"), 'personal-data-out-of-temporals-history');
  assert.equal(slug('What `npm run eval` measured'), 'what-npm-run-eval-measured');
  assert.equal(slug('Prüfung der Größe'), 'prüfung-der-größe');
  const anchors = anchorsOf(['# Title', '## Memory', '```sh', '# not a heading', '```', '## Memory'].join('\n'));
  assert.deepEqual([...anchors], ['title', 'memory', 'memory-1']);
});

test('every link and repository path in README.md, CONTRIBUTING.md and docs/ resolves', () => {
  const { files, references, broken } = checkDocs(root);
  assert.ok(files >= 3 && references > 100, `the check read ${files} files and ${references} references`);
  assert.deepEqual(
    broken.map((b) => `${b.file}:${b.line}: ${b.target} ${b.fault}`),
    [],
  );
});
