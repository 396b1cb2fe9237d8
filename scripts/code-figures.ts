/**
 * Figures of the code itself, as docs/architecture.md and the CHANGELOG quote them:
 *   node --import tsx scripts/code-figures.ts [--json]
 *
 * - the product's files and lines per top-level folder (a feature, or a layer in older layouts);
 * - one email's path: the files the email workflow's code imports (values only: what goes into the
 *   workflow bundle), and everything it imports, types included (activities, ports, adapters);
 * - the ten longest product functions;
 * - the CLI's entry file and its length.
 * The product files are those tsconfig.build.json compiles; imports are read with TypeScript's own
 * pre-processor, so comments and strings do not count.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { relativeImports } from './imports';
import { cycles, featureFolders, folderGraph, importEdges, isFace, pastTheFace, productSources, reachingUp } from './feature-graph';

const root = path.resolve(__dirname, '..');

function productFiles(): string[] {
  const config = ts.readConfigFile(path.join(root, 'tsconfig.build.json'), (f) => ts.sys.readFile(f)).config as { include: string[] };
  const files: string[] = [];
  const walk = (p: string): void => {
    if (!existsSync(p)) return;
    if (statSync(p).isDirectory()) for (const e of readdirSync(p)) walk(path.join(p, e));
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) files.push(path.relative(root, p));
  };
  for (const entry of config.include) walk(path.join(root, entry));
  return [...new Set(files)].sort();
}

const lineCount = (file: string): number => readFileSync(path.join(root, file), 'utf8').split('\n').length;

/**
 * Relative imports of `file`, resolved to .ts files, split into value and type-only imports. An
 * import through a feature's face (`src/<feature>/index.ts`) counts the files that define the names
 * it takes, not everything the face offers: a reader follows a name to where it is written.
 */
function importsOf(file: string): { values: string[]; types: string[] } {
  const text = readFileSync(path.join(root, file), 'utf8');
  const { values, types } = relativeImports(file, text);
  const resolved = (specs: string[]) =>
    specs.flatMap((s) => {
      const target = resolve(file, s);
      if (target === undefined) return [];
      return isFace(target) ? faceTargets(target, namesImported(file, text, s)) : [target];
    });
  return { values: resolved(values), types: resolved(types) };
}

/** The names `file` takes from `specifier` (undefined: all of them, as with `import * as`). */
function namesImported(file: string, text: string, specifier: string): string[] | undefined {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const names: string[] = [];
  for (const st of source.statements) {
    const spec = (ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) && st.moduleSpecifier;
    if (!spec || !ts.isStringLiteral(spec) || spec.text !== specifier) continue;
    if (ts.isImportDeclaration(st)) {
      const bindings = st.importClause?.namedBindings;
      if (!bindings || !ts.isNamedImports(bindings)) return undefined;
      names.push(...bindings.elements.map((e) => (e.propertyName ?? e.name).text));
    } else {
      if (!st.exportClause || !ts.isNamedExports(st.exportClause)) return undefined;
      names.push(...st.exportClause.elements.map((e) => (e.propertyName ?? e.name).text));
    }
  }
  return names;
}

/** The files a face's names come from (all its files when `names` is undefined). */
function faceTargets(face: string, names: string[] | undefined): string[] {
  const source = ts.createSourceFile(face, readFileSync(path.join(root, face), 'utf8'), ts.ScriptTarget.Latest, true);
  const out = new Set<string>();
  for (const st of source.statements) {
    if (!ts.isExportDeclaration(st) || !st.moduleSpecifier || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    const target = resolve(face, st.moduleSpecifier.text);
    if (!target) continue;
    const exported = st.exportClause && ts.isNamedExports(st.exportClause) ? st.exportClause.elements.map((e) => e.name.text) : undefined;
    if (names === undefined || exported === undefined || exported.some((n) => names.includes(n))) out.add(target);
  }
  return [...out];
}

function resolve(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.join(path.dirname(from), spec);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts'), base]) {
    if (candidate.endsWith('.ts') && existsSync(path.join(root, candidate))) return path.normalize(candidate);
  }
  return undefined;
}

function closure(start: string, withTypes: boolean): string[] {
  const seen = new Set<string>([start]);
  const queue = [start];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const { values, types } = importsOf(file);
    for (const next of withTypes ? [...values, ...types] : values) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return [...seen].sort();
}

interface FunctionFigure {
  file: string;
  name: string;
  lines: number;
}

function functionsOf(file: string): FunctionFigure[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: FunctionFigure[] = [];
  const nameOf = (node: ts.Node): string => {
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) return node.name.getText(source);
    const parent = node.parent;
    if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(source);
    if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(source);
    return '(anonymous)';
  };
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file, name: nameOf(node), lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function figures() {
  const files = productFiles();
  const byFolder = new Map<string, { files: number; lines: number }>();
  for (const file of files) {
    const parts = file.split(path.sep);
    // src/<feature>/… counts by feature; other roots by their top folder.
    const folder = parts[0] === 'src' && parts.length > 2 ? `src/${parts[1]}` : parts.length > 1 ? parts[0]! : '.';
    const entry = byFolder.get(folder) ?? { files: 0, lines: 0 };
    entry.files += 1;
    entry.lines += lineCount(file);
    byFolder.set(folder, entry);
  }
  const workflowFile = files.find((f) => /export async function EmailWorkflow\b/.test(readFileSync(path.join(root, f), 'utf8')));
  if (!workflowFile) throw new Error('no product file defines EmailWorkflow');
  const path1 = closure(workflowFile, false);
  const path2 = closure(workflowFile, true);
  const summarise = (list: string[]) => ({
    files: list.length,
    lines: list.reduce((n, f) => n + lineCount(f), 0),
    folders: new Set(list.map((f) => path.dirname(f))).size,
  });
  const longest = files
    .flatMap(functionsOf)
    .sort((a, b) => b.lines - a.lines)
    .slice(0, 10);
  const structure = structureFigures();
  const cliEntry = files.find((f) => /\bprocess\.argv\b/.test(readFileSync(path.join(root, f), 'utf8')) && /(^|\/)(main|cli)\.ts$/.test(f));
  return {
    product: { files: files.length, lines: files.reduce((n, f) => n + lineCount(f), 0) },
    folders: Object.fromEntries([...byFolder.entries()].sort(([a], [b]) => a.localeCompare(b))),
    emailPath: { workflowFile, workflowCode: summarise(path1), everythingImported: summarise(path2), workflowFiles: path1 },
    longestFunctions: longest,
    structure,
    cliEntry: cliEntry ? { file: cliEntry, lines: lineCount(cliEntry) } : undefined,
  };
}

/** The house rules' figures: cycles between folders, imports past a face, features reaching up. */
function structureFigures() {
  const edges = importEdges(productSources());
  const inCycles = (runtimeOnly: boolean) => cycles(folderGraph(edges, { runtimeOnly })).map((c) => c.sort());
  const features = featureFolders();
  const past = pastTheFace(edges);
  const up = reachingUp(edges);
  return {
    srcFolders: new Set(edges.filter((e) => e.from.startsWith('src/')).map((e) => e.from.split('/')[1])).size,
    cyclesEveryEdge: inCycles(false),
    cyclesRuntime: inCycles(true),
    featuresWithFace: features.filter((f) => existsSync(path.join(root, 'src', f, 'index.ts'))).length,
    features: features.length,
    importsPastTheFace: past.length,
    filesPastTheFace: new Set(past.map((e) => e.from)).size,
    filesReachingUp: [...new Set(up.map((e) => e.from))].sort(),
  };
}

function main(): void {
  const f = figures();
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(f, null, 2));
    return;
  }
  console.log(`product: ${f.product.files} files, ${f.product.lines} lines\n`);
  console.log('files and lines per folder:');
  for (const [folder, v] of Object.entries(f.folders))
    console.log(`  ${folder.padEnd(28)} ${String(v.files).padStart(4)} files ${String(v.lines).padStart(7)} lines`);
  const p = f.emailPath;
  console.log(`\none email's path (${p.workflowFile}):`);
  console.log(
    `  the workflow code (value imports, the bundle): ${p.workflowCode.files} files, ${p.workflowCode.lines} lines in ${p.workflowCode.folders} folders`,
  );
  console.log(
    `  everything imported (types included): ${p.everythingImported.files} files, ${p.everythingImported.lines} lines in ${p.everythingImported.folders} folders`,
  );
  const st = f.structure;
  const folderCount = (list: string[][]) => list.reduce((n, c) => n + c.length, 0);
  console.log('\nthe house rules (scripts/feature-graph.ts):');
  console.log(
    `  folders in import cycles, every kind of edge: ${folderCount(st.cyclesEveryEdge)}${st.cyclesEveryEdge.map((c) => ` [${c.join(' ')}]`).join('')}`,
  );
  console.log(
    `  folders in import cycles, imports that run:   ${folderCount(st.cyclesRuntime)}${st.cyclesRuntime.map((c) => ` [${c.join(' ')}]`).join('')}`,
  );
  console.log(`  features with a face (index.ts): ${st.featuresWithFace} of ${st.features}`);
  console.log(`  imports into another feature's insides (past its face): ${st.importsPastTheFace} in ${st.filesPastTheFace} files`);
  console.log(`  files under src/ importing activities/, workers/ or workflows/: ${st.filesReachingUp.length}`);
  console.log('\nlongest product functions:');
  for (const fn of f.longestFunctions) console.log(`  ${String(fn.lines).padStart(4)} lines  ${fn.name} (${fn.file})`);
  if (f.cliEntry) console.log(`\nCLI entry: ${f.cliEntry.file}, ${f.cliEntry.lines} lines`);
}

main();
