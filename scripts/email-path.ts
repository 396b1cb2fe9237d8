/**
 * One email's path through the code: the files the email workflow's code imports (values only:
 * what goes into the workflow bundle), and everything it imports, types included (activities,
 * ports, adapters). An import through a feature's face counts the files that define the names it
 * takes, not everything the face offers. Read by scripts/code-figures.ts and
 * scripts/architecture-doc.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { relativeImports } from './imports';
import { isFace, productSources, resolveImport, root } from './feature-graph';

/** The files tsconfig.build.json compiles. */
export const productFiles = productSources;

export const lineCount = (file: string): number => readFileSync(path.join(root, file), 'utf8').split('\n').length;

/**
 * Relative imports of `file`, resolved to .ts files, split into value and type-only imports. An
 * import through a feature's face (`src/<feature>/index.ts`) counts the files that define the names
 * it takes, not everything the face offers: a reader follows a name to where it is written.
 */
export function importsOf(file: string): { values: string[]; types: string[] } {
  const text = readFileSync(path.join(root, file), 'utf8');
  const { values, types } = relativeImports(file, text);
  const resolved = (specs: string[]) =>
    specs.flatMap((s) => {
      const target = resolveImport(file, s);
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
    const target = resolveImport(face, st.moduleSpecifier.text);
    if (!target) continue;
    const exported = st.exportClause && ts.isNamedExports(st.exportClause) ? st.exportClause.elements.map((e) => e.name.text) : undefined;
    if (names === undefined || exported === undefined || exported.some((n) => names.includes(n))) out.add(target);
  }
  return [...out];
}

export function closure(start: string, withTypes: boolean): string[] {
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

/** The email workflow's path: its bundle and everything it imports, types included. */
export function emailPath() {
  const files = productFiles();
  const workflowFile = files.find((f) => /export async function EmailWorkflow\b/.test(readFileSync(path.join(root, f), 'utf8')));
  if (!workflowFile) throw new Error('no product file defines EmailWorkflow');
  const path1 = closure(workflowFile, false);
  const path2 = closure(workflowFile, true);
  const summarise = (list: string[]) => ({
    files: list.length,
    lines: list.reduce((n, f) => n + lineCount(f), 0),
    folders: new Set(list.map((f) => path.dirname(f))).size,
  });
  // The activities the workflow proxies run for every email too: their factory and all it imports.
  const factory = files.find((f) => /export function createEmailActivities\b/.test(readFileSync(path.join(root, f), 'utf8')));
  const path3 = [...new Set([...path2, ...(factory ? closure(factory, true) : [])])].sort();
  return {
    workflowFile,
    workflowCode: summarise(path1),
    everythingImported: summarise(path2),
    withActivities: summarise(path3),
    workflowFiles: path1,
  };
}
