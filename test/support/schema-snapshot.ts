/**
 * A database schema as plain data: per table its columns (type, nullability, default) and its
 * unique keys, read from information_schema. A release's snapshot is committed under
 * test/fixtures/schema/ (made by scripts/schema-snapshot.ts), so the rollback check compares
 * against it without git history.
 */
import type { Queryable } from '../../src/platform/pool.mariadb';

export interface ColumnShape {
  /** information_schema DATA_TYPE: `varchar`, `int`, `enum`, … */
  dataType: string;
  /** The full type as declared: `varchar(191)`, `int(10) unsigned`, `enum('a','b')`. */
  columnType: string;
  nullable: boolean;
  /** As information_schema says it (`'fetched'`, `current_timestamp(3)`, `NULL`); null: none. */
  default: string | null;
  /** `auto_increment`, `on update current_timestamp(3)`, `VIRTUAL GENERATED`, …; absent when empty. */
  extra?: string;
  /** Characters (text) or bytes (binary). The fields below are absent where they do not apply. */
  maxLength?: number;
  precision?: number;
  scale?: number;
  datetimePrecision?: number;
  charset?: string;
  collation?: string;
}

export interface UniqueKey {
  name: string;
  /** Column names in key order; a prefix length as `name(191)`. */
  columns: string[];
}

export interface TableShape {
  columns: Record<string, ColumnShape>;
  uniqueKeys: UniqueKey[];
  /** CHECK constraints by name (a JSON column's own check is named after the column). */
  checks: Record<string, string>;
}

export interface SchemaSnapshot {
  /** The release the snapshot was taken of, and the commit its migrations came from. */
  release: string;
  commit: string;
  /** sha256 of each migration file of the release: an older release refuses to start when one changed. */
  migrations: Record<string, string>;
  tables: Record<string, TableShape>;
}

interface ColumnRow {
  TABLE_NAME: string;
  COLUMN_NAME: string;
  DATA_TYPE: string;
  COLUMN_TYPE: string;
  IS_NULLABLE: string;
  COLUMN_DEFAULT: string | null;
  EXTRA: string;
  CHARACTER_MAXIMUM_LENGTH: number | bigint | null;
  NUMERIC_PRECISION: number | bigint | null;
  NUMERIC_SCALE: number | bigint | null;
  DATETIME_PRECISION: number | bigint | null;
  CHARACTER_SET_NAME: string | null;
  COLLATION_NAME: string | null;
}

interface IndexRow {
  TABLE_NAME: string;
  INDEX_NAME: string;
  COLUMN_NAME: string;
  SUB_PART: number | bigint | null;
}

const num = (v: number | bigint | null): number | undefined => (v === null ? undefined : Number(v));

/** The shape without its empty fields, so a snapshot reads one line per column. */
function columnShape(r: ColumnRow): ColumnShape {
  const shape: ColumnShape = {
    dataType: r.DATA_TYPE.toLowerCase(),
    columnType: r.COLUMN_TYPE,
    nullable: r.IS_NULLABLE === 'YES',
    default: r.COLUMN_DEFAULT,
    extra: r.EXTRA || undefined,
    maxLength: num(r.CHARACTER_MAXIMUM_LENGTH),
    precision: num(r.NUMERIC_PRECISION),
    scale: num(r.NUMERIC_SCALE),
    datetimePrecision: num(r.DATETIME_PRECISION),
    charset: r.CHARACTER_SET_NAME ?? undefined,
    collation: r.COLLATION_NAME ?? undefined,
  };
  return Object.fromEntries(Object.entries(shape).filter(([, v]) => v !== undefined)) as unknown as ColumnShape;
}

/** The tables of `database` (the bookkeeping table `schema_migrations` left out). */
export async function readSchema(db: Queryable, database: string): Promise<Record<string, TableShape>> {
  const columns = (await db.query(
    `SELECT c.TABLE_NAME, c.COLUMN_NAME, c.DATA_TYPE, c.COLUMN_TYPE, c.IS_NULLABLE, c.COLUMN_DEFAULT, c.EXTRA,
            c.CHARACTER_MAXIMUM_LENGTH, c.NUMERIC_PRECISION, c.NUMERIC_SCALE, c.DATETIME_PRECISION,
            c.CHARACTER_SET_NAME, c.COLLATION_NAME
       FROM information_schema.COLUMNS c
       JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
      WHERE c.TABLE_SCHEMA = ? AND t.TABLE_TYPE = 'BASE TABLE' AND c.TABLE_NAME <> 'schema_migrations'
      ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION`,
    [database],
  )) as ColumnRow[];
  const tables: Record<string, TableShape> = {};
  for (const r of columns) {
    const table = (tables[r.TABLE_NAME] ??= { columns: {}, uniqueKeys: [], checks: {} });
    table.columns[r.COLUMN_NAME] = columnShape(r);
  }
  const indexes = (await db.query(
    `SELECT TABLE_NAME, INDEX_NAME, COLUMN_NAME, SUB_PART FROM information_schema.STATISTICS
      WHERE TABLE_SCHEMA = ? AND NON_UNIQUE = 0 AND TABLE_NAME <> 'schema_migrations'
      ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`,
    [database],
  )) as IndexRow[];
  for (const r of indexes) {
    const table = tables[r.TABLE_NAME];
    if (table === undefined) continue;
    let key = table.uniqueKeys.find((k) => k.name === r.INDEX_NAME);
    if (key === undefined) table.uniqueKeys.push((key = { name: r.INDEX_NAME, columns: [] }));
    key.columns.push(r.SUB_PART === null ? r.COLUMN_NAME : `${r.COLUMN_NAME}(${num(r.SUB_PART)})`);
  }
  const checks = (await db.query(
    `SELECT TABLE_NAME, CONSTRAINT_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS
      WHERE CONSTRAINT_SCHEMA = ? ORDER BY TABLE_NAME, CONSTRAINT_NAME`,
    [database],
  )) as Array<{ TABLE_NAME: string; CONSTRAINT_NAME: string; CHECK_CLAUSE: string }>;
  for (const r of checks) {
    const table = tables[r.TABLE_NAME];
    if (table !== undefined) table.checks[r.CONSTRAINT_NAME] = r.CHECK_CLAUSE;
  }
  return tables;
}
