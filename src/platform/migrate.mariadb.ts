import { FAILURE_TYPES } from './contract';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as mariadb from 'mariadb';
import { PermanentError } from './errors';
import { parseDatabaseUrl } from './pool.mariadb';

const MIGRATIONS_DIR = path.resolve(__dirname, '../../migrations');

export interface MigrationResult {
  database: string;
  created: boolean;
  applied: string[];
}

/**
 * Creates the database when missing and applies every versioned migration not yet recorded in
 * `schema_migrations`. Safe to run concurrently with itself: a named lock serialises runs.
 * `directory` is for tools that rebuild an older release's schema from its own migrations.
 */
export async function migrate(databaseUrl: string, directory = MIGRATIONS_DIR): Promise<MigrationResult> {
  const { database, ...server } = parseDatabaseUrl(databaseUrl);
  const conn = await mariadb.createConnection({ ...server, connectTimeout: 5_000, multipleStatements: false });
  try {
    const existing = (await conn.query('SHOW DATABASES LIKE ?', [database])) as unknown[];
    await conn.query(`CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await conn.query(`USE \`${database}\``);
    await conn.query("SELECT GET_LOCK('email_rag_migrate', 60)");
    await conn.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version VARCHAR(64) NOT NULL PRIMARY KEY,
         checksum CHAR(64) NOT NULL,
         applied_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
       ) ENGINE = InnoDB`,
    );
    const rows = (await conn.query('SELECT version, checksum FROM schema_migrations')) as Array<{ version: string; checksum: string }>;
    const done = new Map(rows.map((r) => [r.version, r.checksum]));
    const applied: string[] = [];
    for (const { file, version, sql, checksum } of migrationFiles(directory)) {
      const recorded = done.get(version);
      if (recorded !== undefined) {
        if (recorded !== checksum) {
          throw new PermanentError(
            `migration ${file} was changed after it was applied; add a new migration instead`,
            FAILURE_TYPES.migrationChanged,
          );
        }
        continue;
      }
      for (const statement of splitStatements(sql)) await conn.query(statement);
      await conn.query('INSERT INTO schema_migrations (version, checksum) VALUES (?, ?)', [version, checksum]);
      applied.push(version);
    }
    await conn.query("SELECT RELEASE_LOCK('email_rag_migrate')");
    return { database, created: existing.length === 0, applied };
  } finally {
    await conn.end();
  }
}

/** The versioned migrations of this build, in the order they apply. */
export function migrationFiles(directory = MIGRATIONS_DIR): Array<{ file: string; version: string; sql: string; checksum: string }> {
  return readdirSync(directory)
    .filter((f) => /^\d+_.*\.sql$/.test(f))
    .sort()
    .map((file) => {
      const sql = readFileSync(path.join(directory, file), 'utf8');
      return { file, version: file.replace(/\.sql$/, ''), sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/** What `schema_migrations` says against this build's migrations (read only: nothing is applied). */
export interface MigrationStatus {
  /** The migrations of this build. */
  known: number;
  /** Recorded and unchanged. */
  applied: string[];
  /** Not recorded: `email-rag migrate` applies them. */
  missing: string[];
  /** Recorded with another checksum: the file was edited after it ran. */
  changed: string[];
  /** Recorded but not in this build: the database was migrated by a newer release. */
  unknown: string[];
}

/** Compares the database's `schema_migrations` with the migration files; a database never migrated misses all. */
export async function migrationStatus(db: Pick<mariadb.Pool, 'query'>): Promise<MigrationStatus> {
  const tables = (await db.query("SHOW TABLES LIKE 'schema_migrations'")) as unknown[];
  const rows =
    tables.length === 0
      ? []
      : ((await db.query('SELECT version, checksum FROM schema_migrations')) as Array<{ version: string; checksum: string }>);
  const recorded = new Map(rows.map((r) => [r.version, r.checksum]));
  const files = migrationFiles();
  const status: MigrationStatus = { known: files.length, applied: [], missing: [], changed: [], unknown: [] };
  for (const f of files) {
    const checksum = recorded.get(f.version);
    if (checksum === undefined) status.missing.push(f.version);
    else if (checksum !== f.checksum) status.changed.push(f.version);
    else status.applied.push(f.version);
  }
  const inBuild = new Set(files.map((f) => f.version));
  status.unknown = [...recorded.keys()].filter((v) => !inBuild.has(v)).sort();
  return status;
}

/** Drops a database; used by tests and the demo for throwaway databases only. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const { database, ...server } = parseDatabaseUrl(databaseUrl);
  const conn = await mariadb.createConnection({ ...server, connectTimeout: 5_000 });
  try {
    await conn.query(`DROP DATABASE IF EXISTS \`${database}\``);
  } finally {
    await conn.end();
  }
}

function splitStatements(sql: string): string[] {
  return sql
    .split('\n')
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n')
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
