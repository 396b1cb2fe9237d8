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

/** Relative imports of `file`, resolved to .ts files, split into value and type-only imports. */
function importsOf(file: string): { values: string[]; types: string[] } {
  const { values, types } = relativeImports(file, readFileSync(path.join(root, file), 'utf8'));
  const resolved = (specs: string[]) => specs.map((s) => resolve(file, s)).filter((f): f is string => f !== undefined);
  return { values: resolved(values), types: resolved(types) };
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
  const cliEntry = files.find((f) => /\bprocess\.argv\b/.test(readFileSync(path.join(root, f), 'utf8')) && /(^|\/)(main|cli)\.ts$/.test(f));
  return {
    product: { files: files.length, lines: files.reduce((n, f) => n + lineCount(f), 0) },
    folders: Object.fromEntries([...byFolder.entries()].sort(([a], [b]) => a.localeCompare(b))),
    emailPath: { workflowFile, workflowCode: summarise(path1), everythingImported: summarise(path2), workflowFiles: path1 },
    longestFunctions: longest,
    cliEntry: cliEntry ? { file: cliEntry, lines: lineCount(cliEntry) } : undefined,
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
  console.log('\nlongest product functions:');
  for (const fn of f.longestFunctions) console.log(`  ${String(fn.lines).padStart(4)} lines  ${fn.name} (${fn.file})`);
  if (f.cliEntry) console.log(`\nCLI entry: ${f.cliEntry.file}, ${f.cliEntry.lines} lines`);
}

main();
