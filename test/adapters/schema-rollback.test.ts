/**
 * A rollback puts the previous release's code on the database this build migrated. These tests
 * migrate a fresh database to the current schema and check it against the previous release's
 * snapshot (test/fixtures/schema/, made by scripts/schema-snapshot.ts; docs/migrations.md): every
 * migration since then must be an expansion, and the previous release's migrations unchanged.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { errorMessage } from '../../src/platform/errors';
import { migrationFiles } from '../../src/platform/migrate.mariadb';
import { createTestDatabase } from '../support/database';
import { listedValues } from '../support/column-widening';
import { excuses, formatViolation, rollbackViolations, type AllowedChange } from '../support/schema-compat';
import { readSchema, type ColumnShape, type SchemaSnapshot, type TableShape } from '../support/schema-snapshot';

/** The release a rollback goes back to: refresh at each release (docs/migrations.md). */
const PREVIOUS_RELEASE = '1.3.0';
const snapshot = JSON.parse(
  readFileSync(path.join(__dirname, '../fixtures/schema', `release-${PREVIOUS_RELEASE}.json`), 'utf8'),
) as SchemaSnapshot;

/**
 * Changes the previous release survives although the check cannot tell, each with its reason: a
 * new unique key or CHECK its writes cannot break, or a contraction whose expansion it shipped
 * (it no longer reads the old shape). Empty: every migration since 1.3.0 is an expansion.
 * Cleared at each release, when the snapshot is refreshed.
 */
const ALLOWED: AllowedChange[] = [];

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let current: Record<string, TableShape>;

before(async () => {
  db = await createTestDatabase('rollback');
  current = await readSchema(db.pool, new URL(db.url).pathname.slice(1));
});
after(async () => {
  await db?.drop();
});

test(`the current schema keeps release ${PREVIOUS_RELEASE} working: its tables and columns, same or wider, no new demands on its writes`, () => {
  const violations = rollbackViolations(snapshot.tables, current, ALLOWED).map(formatViolation);
  assert.deepEqual(violations, [], `contractions since ${PREVIOUS_RELEASE} (ship them one release later):\n${violations.join('\n')}`);
  const raw = rollbackViolations(snapshot.tables, current);
  for (const a of ALLOWED) {
    assert.ok(
      raw.some((v) => excuses(a, v)),
      `the allow list excuses ${a.table}${a.name === undefined ? '' : `.${a.name}`}, which changes nothing: remove the entry`,
    );
  }
});

test(`release ${PREVIOUS_RELEASE}'s migrations are all here, unchanged (it refuses to start on a changed one)`, () => {
  const here = new Map(migrationFiles().map((m) => [m.version, m.checksum]));
  const changed = Object.entries(snapshot.migrations)
    .filter(([version, checksum]) => here.get(version) !== checksum)
    .map(([version]) => `migrations/${version}.sql ${here.has(version) ? 'changed' : 'removed'}`);
  assert.deepEqual(changed, []);
});

test(`release ${PREVIOUS_RELEASE}'s writes work on the current schema: a row of each of its tables, its columns only, written, read and deleted`, async () => {
  // What an allowed contraction took away, the previous release no longer writes.
  const dropped = (table: string, column?: string) => ALLOWED.some((a) => a.table === table && a.name === column);
  for (const [table, shape] of Object.entries(snapshot.tables)) {
    if (dropped(table)) continue;
    // The rows a migration seeds (a singleton's row 1) would collide with the sample row.
    await db.pool.query(`DELETE FROM \`${table}\``);
    const columns = Object.entries(shape.columns).filter(
      ([name, c]) => !/auto_increment|generated/i.test(c.extra ?? '') && !dropped(table, name),
    );
    const names = columns.map(([name]) => `\`${name}\``);
    const values = columns.map(([, c]) => sampleValue(c));
    const placeholders = names.map(() => '?').join(', ');
    await db.pool
      .query(`INSERT INTO \`${table}\` (${names.join(', ')}) VALUES (${placeholders})`, values)
      .catch((err: unknown) => assert.fail(`${table}: an INSERT of ${PREVIOUS_RELEASE}'s columns fails: ${errorMessage(err)}`));
    const same = names.map((n) => `${n} <=> ?`).join(' AND ');
    const found = (await db.pool.query(`SELECT COUNT(*) AS n FROM \`${table}\` WHERE ${same}`, values)) as Array<{ n: bigint }>;
    assert.equal(Number(found[0]!.n), 1, `${table}: the row written with ${PREVIOUS_RELEASE}'s columns reads back unchanged`);
    const deleted = (await db.pool.query(`DELETE FROM \`${table}\` WHERE ${same}`, values)) as { affectedRows: number };
    assert.equal(deleted.affectedRows, 1, `${table}: the row is deleted`);
  }
});

/** A value the previous release's column takes (and its CHECKs: a singleton's id is 1, a JSON text '7'). */
function sampleValue(c: ColumnShape): unknown {
  switch (c.dataType) {
    case 'tinyint':
    case 'smallint':
    case 'mediumint':
    case 'int':
    case 'bigint':
    case 'decimal':
      return 1;
    case 'float':
    case 'double':
      return 0.5;
    case 'enum':
    case 'set':
      return listedValues(c.columnType)[0];
    case 'date':
      return '2026-01-02';
    case 'datetime':
    case 'timestamp':
      return '2026-01-02 03:04:05';
    case 'binary':
    case 'varbinary':
    case 'tinyblob':
    case 'blob':
    case 'mediumblob':
    case 'longblob':
      // BINARY(n) pads to n bytes: a full-length value reads back as written.
      return Buffer.alloc(c.dataType === 'binary' ? (c.maxLength ?? 1) : 4, 7);
    default:
      return '7';
  }
}
