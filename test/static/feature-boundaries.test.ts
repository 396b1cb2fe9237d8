/**
 * The features under src/ depend on each other one way: the imports that run (type-only imports
 * vanish in the build) between feature folders form no cycle. The CLI commands (`*.cli.ts`) are
 * left out: like the worker, each assembles several features. A feature's contract module
 * (`<feature>.contract.ts`: names it shares, such as its audit event types) is what it exports on
 * purpose to every other feature: it imports nothing at run time, so an import of it cannot close
 * a cycle and draws no arrow. platform/ imports no feature (lint: import-x/no-restricted-paths in
 * eslint.config.mjs).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { relativeImports } from '../../scripts/imports';

const root = path.resolve(__dirname, '../..');
const src = path.join(root, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The feature folder of a file under src/, or undefined for src/config.ts and files outside src/. */
function featureOf(file: string): string | undefined {
  const parts = path.relative(src, file).split(path.sep);
  return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined;
}

/** Relative specifiers of the imports and re-exports of `text` that remain at run time. */
export function runtimeImports(file: string, text: string): string[] {
  return relativeImports(file, text).values;
}

const isContract = (file: string): boolean => /\.contract\.ts$/.test(file);

/** feature -> the features it imports at run time, with one file pair that shows each arrow. */
function featureGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of sourceFiles(src)) {
    const from = featureOf(file);
    if (!from || file.endsWith('.cli.ts')) continue;
    for (const specifier of runtimeImports(file, readFileSync(file, 'utf8'))) {
      const target = path.resolve(path.dirname(file), specifier);
      const to = featureOf(target);
      if (!to || to === from || isContract(`${target}.ts`)) continue;
      const arrows = graph.get(from) ?? new Map<string, string>();
      if (!arrows.has(to)) arrows.set(to, `${path.relative(root, file)} -> ${specifier}`);
      graph.set(from, arrows);
    }
  }
  return graph;
}

/** A cycle of the graph as the arrows that close it, or undefined. */
export function findCycle(graph: Map<string, Map<string, string>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (state.get(next) === 'open') {
        const loop = [...stack.slice(stack.indexOf(next)), next];
        return loop.slice(1).map((to, i) => `${loop[i]} -> ${to}: ${graph.get(loop[i]!)!.get(to)}`);
      }
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    if (state.has(node)) continue;
    const found = visit(node);
    if (found) return found;
  }
  return undefined;
}

test('the check sees run-time imports only, and finds a cycle', () => {
  const text = [
    "import { a } from '../email/a';",
    "import type { B } from '../cases/b';",
    "import { type C } from '../cases/c';",
    "export { d } from './d';",
    "export type { E } from '../retrieval/e';",
    "import { f } from 'luxon';",
  ].join('\n');
  assert.deepEqual(runtimeImports('x.ts', text), ['../email/a', './d']);
  const graph = new Map([
    ['a', new Map([['b', 'a.ts -> ../b/x']])],
    ['b', new Map([['a', 'b.ts -> ../a/y']])],
  ]);
  assert.deepEqual(findCycle(graph), ['a -> b: a.ts -> ../b/x', 'b -> a: b.ts -> ../a/y']);
  assert.equal(findCycle(new Map([['a', new Map([['b', '']])]])), undefined);
});

test('the features import each other one way (no cycle between feature folders)', () => {
  const graph = featureGraph();
  assert.ok(graph.get('email')?.has('platform'), 'the graph is read (email uses platform)');
  assert.equal(
    graph.get('platform')?.size ?? 0,
    0,
    `platform imports features: ${[...(graph.get('platform')?.values() ?? [])].join(', ')}`,
  );
  const cycle = findCycle(graph);
  assert.equal(cycle, undefined, `a cycle between features:\n  ${(cycle ?? []).join('\n  ')}`);
});

test('a contract module imports nothing at run time (so importing it cannot close a cycle)', () => {
  const contracts = sourceFiles(src).filter(isContract);
  assert.ok(contracts.length > 5, 'the contract modules are found');
  for (const file of contracts) {
    assert.deepEqual(runtimeImports(file, readFileSync(file, 'utf8')), [], path.relative(root, file));
  }
});
