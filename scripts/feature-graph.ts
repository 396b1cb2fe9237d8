/**
 * The import graph of the product's code, read with TypeScript's own parser (scripts/imports.ts):
 * every import, re-export and `import type` of every file under src/, activities/, workers/ and
 * workflows/. What it answers is what the house rules are about (docs/architecture.md):
 * - which folders under src/ depend on which, by every kind of edge or by the imports that run;
 * - the folders that stand in one import cycle;
 * - the imports from one feature into another that do not go through that feature's face
 *   (`src/<feature>/index.ts`);
 * - the files under src/ that reach up into the composition roots (activities/, workers/).
 * Used by scripts/code-figures.ts (the figures docs/architecture.md quotes) and by
 * test/static/feature-boundaries.test.ts (which holds the rules).
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { relativeImports } from './imports';

export const root = path.resolve(__dirname, '..');

/** Shared infrastructure, not a feature: every feature may use it, and it uses none. */
export const PLATFORM = 'platform';
/** The composition roots: they assemble the features and no feature imports them. */
export const COMPOSITION_ROOTS = ['activities', 'workers', 'workflows', 'cli'];

export interface ImportEdge {
  /** The importing file, relative to the repository's root. */
  from: string;
  /** The imported file, resolved, relative to the root. */
  to: string;
  specifier: string;
  /** Whether the import remains at run time (type-only imports vanish in the build). */
  runtime: boolean;
}

/** The .ts files under a folder of the repository, relative to its root. */
export function tsFiles(folder: string): string[] {
  const out: string[] = [];
  const walk = (p: string): void => {
    if (!existsSync(p)) return;
    if (statSync(p).isDirectory()) {
      for (const e of readdirSync(p)) walk(path.join(p, e));
    } else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(path.relative(root, p));
  };
  walk(path.join(root, folder));
  return out.sort();
}

/** A relative specifier resolved to a .ts file of the repository, or undefined (a package). */
export function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.join(path.dirname(from), specifier);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) {
    if (existsSync(path.join(root, candidate))) return path.normalize(candidate);
  }
  return undefined;
}

/** Every relative import of the given files. */
export function importEdges(files: string[]): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const from of files) {
    const { values, types } = relativeImports(from, readFileSync(path.join(root, from), 'utf8'));
    for (const [list, runtime] of [
      [values, true],
      [types, false],
    ] as const) {
      for (const specifier of list) {
        const to = resolveImport(from, specifier);
        if (to) edges.push({ from, to, specifier, runtime });
      }
    }
  }
  return edges;
}

/**
 * The folder of a file as the rules see it: `src/<folder>/…` gives the folder (a feature, platform/
 * or cli/), a file directly under src/ gives `src`, and a top-level folder gives its name.
 */
export function folderOf(file: string): string {
  const parts = file.split(path.sep);
  if (parts[0] === 'src') return parts.length > 2 ? parts[1]! : 'src';
  return parts.length > 1 ? parts[0]! : '.';
}

/** The feature folders under src/: every folder but platform/ and the command line's shell. */
export function featureFolders(): string[] {
  return readdirSync(path.join(root, 'src'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== PLATFORM && !COMPOSITION_ROOTS.includes(e.name))
    .map((e) => e.name)
    .sort();
}

/**
 * A feature's face: `index.ts` (what the others use; it loads no driver), `index.adapters.ts` (its
 * values whose modules load a driver or SDK: adapters, commands, assemblies) and
 * `index.workflow.ts` (the deterministic part the workflow bundle takes).
 */
export const isFace = (file: string): boolean => /^src\/[^/]+\/index(\.workflow|\.adapters)?\.ts$/.test(file.split(path.sep).join('/'));

/** Drivers and SDKs that talk to a server or do heavy work at load: only `index.adapters.ts` may lead to them. */
export const DRIVER_PACKAGES = [
  'openai',
  'mariadb',
  'imapflow',
  'nodemailer',
  '@temporalio/client',
  '@temporalio/worker',
  'arangojs',
  '@qdrant/js-client-rest',
  'fastify',
  'openid-client',
  'unpdf',
  'mammoth',
  '@zxcvbn-ts/core',
  'bcryptjs',
];

/** The packages a file loads at run time, by their names (`nodemailer/lib/x` is `nodemailer`). */
export function runtimePackages(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  for (const st of source.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier) || st.moduleSpecifier.text.startsWith('.')) continue;
    const c = st.importClause;
    const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : undefined;
    if (c && (c.isTypeOnly || (!c.name && named && named.length > 0 && named.every((e) => e.isTypeOnly)))) continue;
    const parts = st.moduleSpecifier.text.split('/');
    out.push(parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!);
  }
  return out;
}

/** Every product file a file loads at run time (through a face: every file the face hands on). */
export function runtimeClosure(start: string, edges: ImportEdge[]): string[] {
  const byFile = new Map<string, string[]>();
  for (const e of edges) if (e.runtime) (byFile.get(e.from) ?? byFile.set(e.from, []).get(e.from)!).push(e.to);
  const seen = new Set([start]);
  const queue = [start];
  for (let f = queue.shift(); f !== undefined; f = queue.shift()) {
    for (const next of byFile.get(f) ?? []) {
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(next);
    }
  }
  return [...seen];
}

export type FolderGraph = Map<string, Map<string, string>>;

/** folder -> the folders it imports (under src/ only), with one edge that shows each arrow. */
export function folderGraph(edges: ImportEdge[], options: { runtimeOnly?: boolean } = {}): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const edge of edges) {
    if (!edge.from.startsWith(`src${path.sep}`) || !edge.to.startsWith(`src${path.sep}`)) continue;
    if (options.runtimeOnly && !edge.runtime) continue;
    const from = folderOf(edge.from);
    const to = folderOf(edge.to);
    if (from === to) continue;
    const arrows = graph.get(from) ?? new Map<string, string>();
    if (!arrows.has(to)) arrows.set(to, `${edge.from} -> ${edge.specifier}`);
    graph.set(from, arrows);
    if (!graph.has(to)) graph.set(to, new Map());
  }
  return graph;
}

/** The strongly connected components of more than one folder (Tarjan): the folders in cycles. */
export function cycles(graph: FolderGraph): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indices.get(next)!));
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!indices.has(node)) visit(node);
  return found;
}

/** One cycle of the graph as the arrows that close it, or undefined: what a failing check names. */
export function oneCycle(graph: FolderGraph): string[] | undefined {
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
        const inner = visit(next);
        if (inner) return inner;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of [...graph.keys()].sort()) {
    if (state.has(node)) continue;
    const inner = visit(node);
    if (inner) return inner;
  }
  return undefined;
}

/** Imports from one feature (or cli/, or a file under src/) into another feature's insides. */
export function pastTheFace(edges: ImportEdge[]): ImportEdge[] {
  return edges.filter((e) => {
    if (!e.from.startsWith(`src${path.sep}`) || !e.to.startsWith(`src${path.sep}`)) return false;
    const to = folderOf(e.to);
    return to !== PLATFORM && to !== 'src' && folderOf(e.from) !== to && !isFace(e.to);
  });
}

/** Files under src/ that import a composition root (activities/, workers/, workflows/, cli/). */
export function reachingUp(edges: ImportEdge[]): ImportEdge[] {
  return edges.filter((e) => e.from.startsWith(`src${path.sep}`) && COMPOSITION_ROOTS.includes(folderOf(e.to)));
}

/** The product's source files the graph is read from: what tsconfig.build.json compiles. */
export function productSources(): string[] {
  const config = ts.readConfigFile(path.join(root, 'tsconfig.build.json'), (f) => ts.sys.readFile(f)).config as { include: string[] };
  return [...new Set(config.include.flatMap(tsFiles))].sort();
}
