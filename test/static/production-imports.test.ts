/**
 * What the product may import. A production install (`npm ci --omit=dev`) has only the
 * `dependencies` of package.json and ships only what the build compiles plus bin/: a production
 * file that reaches into test/ or scripts/, or loads a devDependency, works in a checkout and
 * fails in the installation. test/e2e/production-install.e2e.test.ts proves the same on a real
 * install; this check names the file and the import at once.
 */
import assert from 'node:assert/strict';
import { builtinModules } from 'node:module';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** Folders and files the build compiles (tsconfig.build.json), and bin/, which runs them. */
function productionRoots(): string[] {
  const { config, error } = ts.readConfigFile(path.join(root, 'tsconfig.build.json'), (file) => readFileSync(file, 'utf8'));
  assert.equal(error, undefined, 'tsconfig.build.json reads');
  return [...(config as { include: string[] }).include, 'bin'];
}

function sourceFiles(entry: string): string[] {
  const full = path.join(root, entry);
  if (statSync(full).isFile()) return [entry];
  return readdirSync(full, { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(entry, e.name);
    if (e.isDirectory()) return sourceFiles(rel);
    return /\.(ts|js)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

interface Import {
  specifier: string;
  /** Erased by the compiler (`import type`, or every named binding `type`): never loaded at run time. */
  typeOnly: boolean;
}

/** Static imports and re-exports, `import('x')` and `require('x')` with a literal name. */
export function importsOf(file: string, text: string): Import[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, file.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const found: Import[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly || (!clause.name && named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly)));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : undefined;
      const typeOnly = node.isTypeOnly || (named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const expression = node.moduleReference.expression;
      if (ts.isStringLiteral(expression)) found.push({ specifier: expression.text, typeOnly: node.isTypeOnly });
    } else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteralLike(node.arguments[0]!)) {
      const callee = node.expression;
      const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
      if (isRequire || callee.kind === ts.SyntaxKind.ImportKeyword) found.push({ specifier: node.arguments[0].text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const builtins = new Set(builtinModules);

/** The package an import names (`@scope/name` or `name`), or undefined for relative paths and builtins. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  if (builtins.has(specifier) || builtins.has(specifier.split('/')[0]!)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Why one import of a production file would break a production install, or undefined when it is fine. */
export function problemWith(file: string, imported: Import): string | undefined {
  const name = packageOf(imported.specifier);
  if (name === undefined) {
    if (!imported.specifier.startsWith('.')) return undefined;
    const target = path.relative(root, path.resolve(root, path.dirname(file), imported.specifier)).split(path.sep)[0];
    if (target === 'test' || target === 'scripts') return `imports ${imported.specifier}: ${target}/ is not part of the product`;
    return undefined;
  }
  if (name in pkg.dependencies) return undefined;
  if (imported.typeOnly && name in pkg.devDependencies) return undefined;
  if (name in pkg.devDependencies) return `imports ${imported.specifier}: ${name} is only a devDependency`;
  return `imports ${imported.specifier}: ${name} is not a dependency in package.json`;
}

const files = productionRoots().flatMap(sourceFiles);
const imports = files.map((file) => ({ file, imports: importsOf(file, readFileSync(path.join(root, file), 'utf8')) }));

test('the check recognises what it looks for (relative paths into test/ and scripts/, devDependencies, type-only imports)', () => {
  const sample = [
    "import { waitFor } from '../../test/support/wait';",
    "export { freePort } from '../../scripts/x';",
    "import { SMTPServer } from 'smtp-server';",
    "import type { SMTPServerSession } from 'smtp-server';",
    "import { type SMTPServerDataStream } from 'smtp-server';",
    "import { type Client, Connection } from '@temporalio/testing';",
    "const tsx = require('tsx/cjs/api');",
    "void import('left-pad');",
    "import fs from 'node:fs';",
    "import path from 'path';",
    "import { parse } from 'yaml';",
    "import { loadConfig } from '../../src/config';",
  ].join('\n');
  const problems = importsOf('src/platform/sample.ts', sample).map((i) => problemWith('src/platform/sample.ts', i));
  assert.deepEqual(problems, [
    'imports ../../test/support/wait: test/ is not part of the product',
    'imports ../../scripts/x: scripts/ is not part of the product',
    'imports smtp-server: smtp-server is only a devDependency',
    undefined,
    undefined,
    'imports @temporalio/testing: @temporalio/testing is only a devDependency',
    'imports tsx/cjs/api: tsx is only a devDependency',
    'imports left-pad: left-pad is not a dependency in package.json',
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
});

test('production code imports nothing from test/ or scripts/ and no package outside dependencies', () => {
  assert.ok(files.length > 100, `found only ${files.length} production files`);
  assert.ok(files.includes(path.join('workers', 'main.ts')) && files.includes(path.join('bin', 'email-rag.js')));
  const problems = imports.flatMap(({ file, imports: list }) =>
    list.flatMap((i) => {
      const problem = problemWith(file, i);
      return problem ? [`${file} ${problem}`] : [];
    }),
  );
  assert.deepEqual(problems, []);
});

test('every dependency is loaded by production code (what only tests or scripts use is a devDependency)', () => {
  const loaded = new Set(imports.flatMap(({ imports: list }) => list.filter((i) => !i.typeOnly).map((i) => packageOf(i.specifier))));
  const unused = Object.keys(pkg.dependencies).filter((name) => !loaded.has(name));
  assert.deepEqual(unused, []);
});
