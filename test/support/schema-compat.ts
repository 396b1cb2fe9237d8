/**
 * The rollback rule as a check: may the previous release run on the current schema? Its code
 * reads and writes the tables and columns of its own snapshot, so every one of them must still be
 * there with the same or a wider type, none of its writes may start to fail (a new NOT NULL
 * column without a default, a new unique key, a new CHECK constraint), and none of the unique
 * keys it relies on for idempotent writes (INSERT IGNORE, ON DUPLICATE KEY UPDATE) may be gone.
 */
import { typeNarrowing } from './column-widening';
import type { ColumnShape, TableShape, UniqueKey } from './schema-snapshot';

export interface Violation {
  table: string;
  column?: string;
  /** The unique key or CHECK constraint the change is about. */
  constraint?: string;
  change: string;
}

/**
 * A change accepted on purpose, with the reason: a new unique key or CHECK (by its name) that the
 * previous release's writes cannot break, or a contraction whose expansion shipped in the previous
 * release, which no longer reads the old shape (a column by its name; a dropped table without one).
 */
export interface AllowedChange {
  table: string;
  name?: string;
  reason: string;
}

export const excuses = (a: AllowedChange, v: Violation): boolean =>
  a.table === v.table &&
  (a.name === undefined ? v.column === undefined && v.constraint === undefined : a.name === (v.column ?? v.constraint));

export function formatViolation(v: Violation): string {
  return `${v.table}${v.column === undefined ? '' : `.${v.column}`}: ${v.change}`;
}

/** Every way the current schema breaks the previous release's code, by table and column, but those allowed. */
export function rollbackViolations(
  previous: Record<string, TableShape>,
  current: Record<string, TableShape>,
  allowed: readonly AllowedChange[] = [],
): Violation[] {
  const out: Violation[] = [];
  for (const [table, before] of Object.entries(previous)) {
    const now = current[table];
    if (now === undefined) {
      out.push({ table, change: 'table dropped' });
      continue;
    }
    for (const [column, was] of Object.entries(before.columns)) {
      const is = now.columns[column];
      if (is === undefined) out.push({ table, column, change: 'column dropped' });
      else for (const change of columnNarrowing(was, is)) out.push({ table, column, change });
    }
    for (const [column, is] of Object.entries(now.columns)) {
      if (column in before.columns || !demandsValue(is)) continue;
      out.push({ table, column, change: "new column NOT NULL without a default: the previous release's INSERTs leave it out and fail" });
    }
    out.push(...uniqueKeyChanges(table, before.uniqueKeys, now.uniqueKeys));
    for (const [name, clause] of Object.entries(now.checks)) {
      if (before.checks[name] === clause) continue;
      out.push({ table, constraint: name, change: `new CHECK ${name} (${clause}): the previous release's writes may fail on it` });
    }
  }
  return out.filter((v) => !allowed.some((a) => excuses(a, v)));
}

/** Each way `is` refuses or alters a value the previous release writes into `was`. */
export function columnNarrowing(was: ColumnShape, is: ColumnShape): string[] {
  const changes: string[] = [];
  const type = typeNarrowing(was, is);
  if (type !== null) changes.push(type);
  if (was.charset !== undefined && is.charset !== undefined && was.charset !== is.charset) {
    changes.push(`character set ${was.charset} → ${is.charset}`);
  }
  if (was.collation !== undefined && is.collation !== undefined && was.collation !== is.collation) {
    changes.push(`collation ${was.collation} → ${is.collation}: comparisons and unique keys change`);
  }
  if (was.nullable && !is.nullable) changes.push('was NULL, now NOT NULL: the previous release may write NULL');
  if (!was.nullable && was.default !== null && is.default === null && !is.nullable && !isAutoIncrement(is)) {
    changes.push(`default ${was.default} dropped: the previous release's INSERTs that leave it out fail`);
  }
  if (isAutoIncrement(was) && !isAutoIncrement(is)) changes.push('no longer AUTO_INCREMENT: INSERTs without an id fail');
  if (!isGenerated(was) && isGenerated(is)) changes.push("now a generated column: the previous release's writes to it fail");
  return changes;
}

/** A column an INSERT that does not name it cannot fill. */
function demandsValue(c: ColumnShape): boolean {
  return !c.nullable && c.default === null && !isAutoIncrement(c) && !isGenerated(c);
}

const isAutoIncrement = (c: ColumnShape) => /auto_increment/i.test(c.extra ?? '');
const isGenerated = (c: ColumnShape) => /generated/i.test(c.extra ?? '') && !/default_generated/i.test(c.extra ?? '');
/** `a` ⊆ `b` as column sets: a unique `a` makes `b` unique too. */
const within = (a: UniqueKey, b: UniqueKey) => a.columns.every((c) => b.columns.includes(c));
const shown = (k: UniqueKey) => `${k.name} (${k.columns.join(', ')})`;

function uniqueKeyChanges(table: string, before: UniqueKey[], now: UniqueKey[]): Violation[] {
  const out: Violation[] = [];
  for (const key of now) {
    // Implied by a key the previous release already kept unique: its writes cannot break it.
    if (before.some((old) => within(old, key))) continue;
    out.push({ table, constraint: key.name, change: `new unique key ${shown(key)}: the previous release's writes may fail on it` });
  }
  for (const key of before) {
    if (now.some((k) => within(k, key))) continue;
    out.push({
      table,
      constraint: key.name,
      change: `unique key ${shown(key)} dropped: the previous release relies on it for idempotent writes`,
    });
  }
  return out;
}
