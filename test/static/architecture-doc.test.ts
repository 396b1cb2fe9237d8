/** docs/architecture.md's picture and figures are generated from the code: they cannot drift from it. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { root } from '../../scripts/feature-graph';
import { withGenerated } from '../../scripts/architecture-doc';

test('docs/architecture.md shows the features and figures the code has now', async () => {
  const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
  assert.equal(await withGenerated(doc), doc, 'docs/architecture.md is out of date: run node --import tsx scripts/architecture-doc.ts');
});
