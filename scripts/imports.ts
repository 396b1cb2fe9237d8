/**
 * The relative imports and re-exports of a TypeScript file, read with TypeScript's own parser
 * (comments and strings do not count), split into those that run and those that name types only
 * (they vanish in the build). Used by scripts/code-figures.ts and the feature-boundaries test.
 */
import ts from 'typescript';

export function relativeImports(file: string, text: string): { values: string[]; types: string[] } {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const values: string[] = [];
  const types: string[] = [];
  const add = (specifier: string, typeOnly: boolean): void => {
    if (specifier.startsWith('.')) (typeOnly ? types : values).push(specifier);
  };
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const clause = statement.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      add(
        statement.moduleSpecifier.text,
        !!clause && (clause.isTypeOnly || (!clause.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly))),
      );
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
      const named = statement.exportClause && ts.isNamedExports(statement.exportClause) ? statement.exportClause.elements : undefined;
      add(statement.moduleSpecifier.text, statement.isTypeOnly || (!!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
    }
  }
  return { values, types };
}
