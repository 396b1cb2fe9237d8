/**
 * Takes the schema snapshot of a release, which the rollback check (test/adapters/schema-rollback.test.ts)
 * compares the current migrations against:
 *
 *   node --import tsx scripts/schema-snapshot.ts <commit-or-tag> <release>
 *   e.g. node --import tsx scripts/schema-snapshot.ts v1.4.0 1.4.0
 *
 * It applies the release's own migrations (read from git, so the working tree's need not be that
 * release's) to a scratch database on DATABASE_URL's server, reads information_schema, drops the
 * database and writes test/fixtures/schema/release-<release>.json (docs/migrations.md).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { errorMessage } from '../src/platform/errors';
import { dropDatabase, migrate, migrationFiles } from '../src/platform/migrate.mariadb';
import { createPool } from '../src/platform/pool.mariadb';
import { readSchema, type SchemaSnapshot } from '../test/support/schema-snapshot';

const ROOT = path.resolve(__dirname, '..');
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Writes the release's migrations/ into a fresh folder; a rev git does not know is refused clearly. */
function exportMigrations(rev: string): { commit: string; dir: string } {
  let commit: string;
  try {
    commit = git('rev-parse', '--verify', '--quiet', `${rev}^{commit}`).trim();
  } catch {
    throw new Error(`git knows no commit or tag '${rev}' (a shallow clone may lack it: git fetch --tags --unshallow)`);
  }
  const files = git('ls-tree', '--name-only', commit, 'migrations/')
    .split('\n')
    .filter((f) => /^migrations\/\d+_.*\.sql$/.test(f));
  if (files.length === 0) throw new Error(`commit ${commit} has no migrations/NNN_*.sql`);
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'schema-snapshot-')), 'migrations');
  mkdirSync(dir);
  for (const file of files) {
    writeFileSync(path.join(dir, path.basename(file)), execFileSync('git', ['show', `${commit}:${file}`], { cwd: ROOT }));
  }
  return { commit, dir };
}

export async function takeSnapshot(rev: string, release: string, databaseUrl: string): Promise<SchemaSnapshot> {
  const { commit, dir } = exportMigrations(rev);
  const url = new URL(databaseUrl);
  url.pathname = `/email_rag_snapshot_${randomBytes(4).toString('hex')}`;
  try {
    const { database } = await migrate(url.toString(), dir);
    const pool = createPool(url.toString(), 1);
    try {
      const checksums = Object.fromEntries(migrationFiles(dir).map((m) => [m.version, m.checksum]));
      return { release, commit, migrations: checksums, tables: await readSchema(pool, database) };
    } finally {
      await pool.end();
    }
  } finally {
    await dropDatabase(url.toString()).catch(() => undefined);
    rmSync(path.dirname(dir), { recursive: true, force: true });
  }
}

/**
 * JSON with one line per column and unique key, so a release's diff reads column by column
 * (Prettier would break the lines, hence its ignore entry for test/fixtures/schema/).
 */
function snapshotJson(snapshot: SchemaSnapshot): string {
  const lines = new Map<string, string>();
  const inline = (value: unknown) => {
    const token = `@@${lines.size}@@`;
    lines.set(token, JSON.stringify(value));
    return token;
  };
  const tables = Object.fromEntries(
    Object.entries(snapshot.tables).map(([name, t]) => [
      name,
      {
        columns: Object.fromEntries(Object.entries(t.columns).map(([c, shape]) => [c, inline(shape)])),
        uniqueKeys: t.uniqueKeys.map(inline),
        checks: t.checks,
      },
    ]),
  );
  const text = JSON.stringify({ ...snapshot, tables }, null, 2);
  return `${text.replace(/"(@@\d+@@)"/g, (_, token: string) => lines.get(token)!)}\n`;
}

async function main(): Promise<void> {
  const [rev, release] = process.argv.slice(2);
  if (rev === undefined || release === undefined || !/^\d+\.\d+\.\d+$/.test(release)) {
    console.error('usage: node --import tsx scripts/schema-snapshot.ts <commit-or-tag> <release, e.g. 1.4.0>');
    process.exitCode = 2;
    return;
  }
  const databaseUrl = process.env.DATABASE_URL?.trim() || 'mariadb://root@127.0.0.1:3306/email_rag';
  try {
    const snapshot = await takeSnapshot(rev, release, databaseUrl);
    const out = path.join(ROOT, 'test/fixtures/schema', `release-${release}.json`);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, snapshotJson(snapshot));
    const tables = Object.keys(snapshot.tables).length;
    console.log(
      `${path.relative(ROOT, out)}: ${tables} tables, ${Object.keys(snapshot.migrations).length} migrations of ${snapshot.commit}`,
    );
  } catch (err) {
    console.error(`cannot take the schema snapshot of ${rev}: ${errorMessage(err)}`);
    process.exitCode = 1;
  }
}

if (require.main === module) void main();
