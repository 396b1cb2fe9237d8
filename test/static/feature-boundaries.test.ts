/**
 * The house rules, read from every import of the product's code (scripts/feature-graph.ts): run-time
 * imports, `import type`, re-exports, CLI commands and contract modules alike.
 * - The folders under src/ depend on each other one way: no cycle between them by any edge.
 * - A feature is used by the others only through its face: `src/<feature>/index.ts`, which loads no
 *   driver or SDK, `index.adapters.ts` for what does (adapters, commands, assemblies), and
 *   `index.workflow.ts` for the deterministic part the workflow bundle takes.
 * - platform/ is infrastructure every feature uses; it imports no feature.
 * - No file under src/ reaches up into the composition roots (activities/, workers/, workflows/, cli/).
 * - A contract module imports nothing at run time, so importing it loads nothing else.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  cycles,
  DRIVER_PACKAGES,
  runtimeClosure,
  runtimePackages,
  featureFolders,
  folderGraph,
  folderOf,
  importEdges,
  isFace,
  oneCycle,
  pastTheFace,
  PLATFORM,
  productSources,
  reachingUp,
  root,
  tsFiles,
  type FolderGraph,
  type ImportEdge,
} from '../../scripts/feature-graph';
import { relativeImports } from '../../scripts/imports';

const edges = importEdges(productSources());
const show = (list: ImportEdge[]) =>
  list
    .slice(0, 20)
    .map((e) => `${e.from} -> ${e.specifier}`)
    .join('\n  ');

test('the graph is read by every kind of edge, and a cycle is found and named', () => {
  const text = [
    "import { a } from '../email/a';",
    "import type { B } from '../cases/b';",
    "import { type C } from '../cases/c';",
    "export { d } from './d';",
    "export type { E } from '../retrieval/e';",
    "import { f } from 'luxon';",
  ].join('\n');
  assert.deepEqual(relativeImports('x.ts', text), { values: ['../email/a', './d'], types: ['../cases/b', '../cases/c', '../retrieval/e'] });
  const graph: FolderGraph = new Map([
    ['a', new Map([['b', 'a.ts -> ../b/x']])],
    ['b', new Map([['a', 'b.ts -> ../a/y']])],
    ['c', new Map([['a', 'c.ts -> ../a/z']])],
  ]);
  assert.deepEqual(oneCycle(graph), ['a -> b: a.ts -> ../b/x', 'b -> a: b.ts -> ../a/y']);
  assert.deepEqual(cycles(graph), [['a', 'b']]);
  assert.equal(oneCycle(new Map([['a', new Map([['b', '']])]])), undefined);
  assert.ok(isFace('src/email/index.ts') && isFace('src/email/index.workflow.ts') && !isFace('src/email/email.workflow.ts'));
  assert.equal(folderOf('src/email/intake/poll.activities.ts'), 'email');
});

test('no folder under src/ is in an import cycle, by any kind of edge', () => {
  const graph = folderGraph(edges);
  assert.ok(graph.get('email')?.has(PLATFORM), 'the graph is read (email uses platform)');
  assert.ok(graph.get('cases')?.has('email'), 'type imports are edges too (cases builds on the email)');
  const cycle = oneCycle(graph);
  assert.equal(cycle, undefined, `a cycle between folders:\n  ${(cycle ?? []).join('\n  ')}`);
});

test('no file of the product is in an import cycle with another, by any kind of edge', () => {
  const graph: FolderGraph = new Map();
  for (const e of edges) {
    const arrows = graph.get(e.from) ?? new Map<string, string>();
    if (!arrows.has(e.to)) arrows.set(e.to, `${e.from} -> ${e.specifier}`);
    graph.set(e.from, arrows);
  }
  const cycle = oneCycle(graph);
  assert.equal(cycle, undefined, `a cycle between files:\n  ${(cycle ?? []).join('\n  ')}`);
});

test('platform/ imports no feature', () => {
  const fromPlatform = edges.filter((e) => folderOf(e.from) === PLATFORM && e.to.startsWith('src/') && folderOf(e.to) !== PLATFORM);
  assert.deepEqual(fromPlatform, [], `platform/ imports:\n  ${show(fromPlatform)}`);
});

test("every import from another feature goes through that feature's face", () => {
  const features = featureFolders();
  assert.ok(features.length >= 15, `the features are found: ${features.join(', ')}`);
  for (const feature of features)
    assert.ok(tsFiles(`src/${feature}`).includes(`src/${feature}/index.ts`), `${feature} has a face (index.ts)`);
  const past = pastTheFace(edges);
  assert.deepEqual(past, [], `imports into another feature's insides:\n  ${show(past)}`);
});

test("a face's index.ts loads no driver or SDK (those wait behind index.adapters.ts)", () => {
  for (const feature of featureFolders()) {
    const face = `src/${feature}/index.ts`;
    const loaded = runtimeClosure(face, edges).flatMap((file) => runtimePackages(file).map((p) => `${file} -> ${p}`));
    const drivers = loaded.filter((l) => DRIVER_PACKAGES.includes(l.split(' -> ')[1]!));
    assert.deepEqual(drivers, [], `${face} loads:\n  ${drivers.join('\n  ')}`);
  }
  assert.ok(runtimePackages('src/mailboxes/connection.smtp.ts').includes('nodemailer'), 'a default import of a package counts');
});

test("a face's workflow part (index.workflow.ts) hands on only what is free of I/O", () => {
  for (const feature of featureFolders()) {
    const face = `src/${feature}/index.workflow.ts`;
    if (!tsFiles(`src/${feature}`).includes(face)) continue;
    const { values } = relativeImports(face, readFileSync(path.join(root, face), 'utf8'));
    for (const specifier of values)
      assert.ok(
        !/\.(activities|port|mariadb|temporal|imap|smtp|openai|qdrant|arango|http|file|local|cli)$/.test(specifier),
        `${face} hands on ${specifier}`,
      );
  }
});

test('no file under src/ reaches up into the composition roots', () => {
  const up = reachingUp(edges);
  assert.deepEqual(up, [], `files under src/ importing activities/, workers/, workflows/ or cli/:\n  ${show(up)}`);
});

test('a contract module imports nothing at run time (so importing it loads nothing else)', () => {
  const contracts = productSources().filter((f) => f.endsWith('.contract.ts'));
  assert.ok(contracts.length > 5, 'the contract modules are found');
  for (const file of contracts) assert.deepEqual(relativeImports(file, readFileSync(path.join(root, file), 'utf8')).values, [], file);
});

test("lint's list of features names every feature folder (its zones refuse imports past a face)", () => {
  const config = readFileSync(path.join(root, 'eslint.config.mjs'), 'utf8');
  const list = /const FEATURES = \[([\s\S]*?)\];/.exec(config)?.[1] ?? '';
  const named = [...list.matchAll(/'([^']+)'/g)].map((m) => m[1]!).sort();
  assert.deepEqual(named, featureFolders());
});
