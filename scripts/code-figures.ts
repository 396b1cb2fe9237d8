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
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { cycles, featureFolders, folderGraph, importEdges, pastTheFace, productSources, reachingUp } from './feature-graph';
import { emailPath, lineCount, productFiles } from './email-path';

const root = path.resolve(__dirname, '..');

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
  const emailPathFigures = emailPath();
  const longest = files
    .flatMap(functionsOf)
    .sort((a, b) => b.lines - a.lines)
    .slice(0, 10);
  const structure = structureFigures();
  const cliEntry = files.find((f) => /\bprocess\.argv\b/.test(readFileSync(path.join(root, f), 'utf8')) && /(^|\/)(main|cli)\.ts$/.test(f));
  return {
    product: { files: files.length, lines: files.reduce((n, f) => n + lineCount(f), 0) },
    folders: Object.fromEntries([...byFolder.entries()].sort(([a], [b]) => a.localeCompare(b))),
    emailPath: emailPathFigures,
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
  console.log(
    `  with the email's activities and all they import: ${p.withActivities.files} files, ${p.withActivities.lines} lines in ${p.withActivities.folders} folders`,
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
