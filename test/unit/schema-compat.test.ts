/**
 * The rollback check on synthetic schemas: it refuses each contraction by table and column with
 * what changed, and lets every expansion through (test/adapters/schema-rollback.test.ts runs it
 * on the real migrations).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listedValues } from '../support/column-widening';
import { formatViolation, rollbackViolations, type AllowedChange } from '../support/schema-compat';
import type { ColumnShape, TableShape } from '../support/schema-snapshot';

const utf8 = { charset: 'utf8mb4', collation: 'utf8mb4_unicode_ci' };
const varchar = (n: number, more: Partial<ColumnShape> = {}): ColumnShape => ({
  dataType: 'varchar',
  columnType: `varchar(${n})`,
  nullable: false,
  default: null,
  maxLength: n,
  ...utf8,
  ...more,
});
const integer = (type: string, unsigned = false, more: Partial<ColumnShape> = {}): ColumnShape => ({
  dataType: type,
  columnType: `${type}(11)${unsigned ? ' unsigned' : ''}`,
  nullable: false,
  default: null,
  ...more,
});
const enumOf = (values: string[], more: Partial<ColumnShape> = {}): ColumnShape => ({
  dataType: 'enum',
  columnType: `enum(${values.map((v) => `'${v}'`).join(',')})`,
  nullable: false,
  default: `'${values[0]}'`,
  ...utf8,
  ...more,
});
const decimal = (p: number, s: number): ColumnShape => ({
  dataType: 'decimal',
  columnType: `decimal(${p},${s})`,
  nullable: false,
  default: null,
  precision: p,
  scale: s,
});
const datetime = (fsp: number): ColumnShape => ({
  dataType: 'datetime',
  columnType: `datetime(${fsp})`,
  nullable: false,
  default: null,
  datetimePrecision: fsp,
});
const table = (columns: Record<string, ColumnShape>, more: Partial<TableShape> = {}): TableShape => ({
  columns,
  uniqueKeys: [{ name: 'PRIMARY', columns: ['id'] }],
  checks: {},
  ...more,
});

const previous = {
  emails: table({
    id: varchar(191),
    status: enumOf(['fetched', 'parsed', 'sent', 'failed']),
    subject: varchar(255, { nullable: true, default: 'NULL' }),
    retries: integer('int', true, { default: '0' }),
  }),
  audit_log: table({ id: integer('bigint', true, { extra: 'auto_increment' }), message: varchar(500) }),
};

test('a dropped column, a narrowed ENUM and a new NOT NULL column are refused, each by table and column', () => {
  const current = {
    emails: table({
      id: varchar(191),
      status: enumOf(['fetched', 'sent', 'failed']),
      retries: integer('int', true, { default: '0' }),
      mailbox_id: varchar(64),
    }),
    audit_log: previous.audit_log,
  };
  assert.deepEqual(rollbackViolations(previous, current).map(formatViolation), [
    "emails.status: type enum('fetched','parsed','sent','failed') → enum('fetched','sent','failed'): values 'parsed' removed",
    'emails.subject: column dropped',
    "emails.mailbox_id: new column NOT NULL without a default: the previous release's INSERTs leave it out and fail",
  ]);
});

test('expansions pass: new tables, new nullable or defaulted columns, ENUM values gained in any order, wider types', () => {
  const current = {
    emails: table({
      id: varchar(255),
      status: enumOf(['answered', 'failed', 'sent', 'parsed', 'fetched']),
      // TEXT holds more than the VARCHAR(255) it was.
      subject: varchar(0, { nullable: true, default: 'NULL', dataType: 'text', columnType: 'text', maxLength: 65535 }),
      retries: integer('bigint', false, { default: '0' }),
      note: varchar(64, { nullable: true, default: 'NULL' }),
      kind: varchar(16, { default: "'mail'" }),
      seq: integer('bigint', true, { extra: 'auto_increment' }),
    }),
    audit_log: table(
      {
        id: integer('bigint', true, { extra: 'auto_increment' }),
        message: varchar(500),
        shown_at: { ...datetime(3), default: 'current_timestamp(3)' },
      },
      {
        uniqueKeys: [
          { name: 'PRIMARY', columns: ['id'] },
          { name: 'ux_id_message', columns: ['message', 'id'] },
        ],
      },
    ),
    new_table: table({ id: varchar(10) }, { checks: { ck: '`id` <> 1' } }),
  };
  assert.deepEqual(rollbackViolations(previous, current).map(formatViolation), []);
});

test('narrower types are refused: shorter strings, smaller or unsigned integers, fewer digits, NULL no longer accepted', () => {
  const before = table({
    a: varchar(191),
    b: integer('bigint'),
    c: integer('int'),
    d: decimal(10, 2),
    e: varchar(20, { nullable: true, default: 'NULL' }),
    f: varchar(8, { default: "'x'" }),
    g: datetime(3),
    h: integer('int', false, { extra: 'auto_increment' }),
  });
  const now = table({
    a: varchar(64),
    b: integer('int'),
    c: integer('int', true),
    d: decimal(10, 1),
    e: varchar(20),
    f: varchar(8),
    g: datetime(0),
    h: integer('int'),
  });
  assert.deepEqual(rollbackViolations({ t: before }, { t: now }).map(formatViolation), [
    't.a: type varchar(191) → varchar(64): shorter (191 → 64)',
    't.b: type bigint(11) → int(11): a narrower integer range',
    't.c: type int(11) → int(11) unsigned: a narrower integer range',
    't.d: type decimal(10,2) → decimal(10,1): fewer digits before or after the point',
    't.e: was NULL, now NOT NULL: the previous release may write NULL',
    "t.f: default 'x' dropped: the previous release's INSERTs that leave it out fail",
    't.g: type datetime(3) → datetime(0): fewer fractional seconds',
    't.h: no longer AUTO_INCREMENT: INSERTs without an id fail',
  ]);
  const latin = varchar(191, { charset: 'latin1', collation: 'latin1_swedish_ci' });
  assert.deepEqual(
    rollbackViolations({ t: table({ a: varchar(191) }) }, { t: table({ a: latin }) }).map((v) => v.change),
    ['character set utf8mb4 → latin1', 'collation utf8mb4_unicode_ci → latin1_swedish_ci: comparisons and unique keys change'],
  );
});

test('a new unique key or CHECK on an old table is refused unless allowed with a reason; a dropped unique key and a dropped table too', () => {
  const before = {
    t: table({ id: varchar(10), mail: varchar(10) }, { uniqueKeys: [{ name: 'ux_mail', columns: ['mail'] }] }),
    u: table({}),
  };
  const now = {
    t: table(
      { id: varchar(10), mail: varchar(10) },
      {
        uniqueKeys: [
          { name: 'PRIMARY', columns: ['id'] },
          { name: 'ux_mail_id', columns: ['mail', 'id'] },
        ],
        checks: { ck_mail: "`mail` like '%@%'" },
      },
    ),
  };
  assert.deepEqual(rollbackViolations(before, now).map(formatViolation), [
    "t: new unique key PRIMARY (id): the previous release's writes may fail on it",
    't: unique key ux_mail (mail) dropped: the previous release relies on it for idempotent writes',
    "t: new CHECK ck_mail (`mail` like '%@%'): the previous release's writes may fail on it",
    'u: table dropped',
  ]);
  const allowed: AllowedChange[] = [
    { table: 't', name: 'PRIMARY', reason: 'ids are generated unique by every release' },
    { table: 't', name: 'ck_mail', reason: 'every release writes addresses only' },
  ];
  assert.deepEqual(rollbackViolations(before, now, allowed).map(formatViolation), [
    't: unique key ux_mail (mail) dropped: the previous release relies on it for idempotent writes',
    'u: table dropped',
  ]);
});

test('a contraction whose expansion shipped in the previous release passes once allowed by name; a table allowed whole only for its own drop', () => {
  const before = { t: table({ id: varchar(10), old_name: varchar(10, { nullable: true, default: 'NULL' }) }), gone: table({}) };
  const now = { t: table({ id: varchar(10), new_name: varchar(10, { nullable: true, default: 'NULL' }) }) };
  assert.deepEqual(rollbackViolations(before, now).map(formatViolation), ['t.old_name: column dropped', 'gone: table dropped']);
  const allowed: AllowedChange[] = [
    { table: 't', name: 'old_name', reason: 'renamed to new_name in 1.4.0, which reads new_name only' },
    { table: 'gone', reason: 'unused since 1.4.0' },
  ];
  assert.deepEqual(rollbackViolations(before, now, allowed), []);
  // Allowing a table's drop does not excuse a column of it.
  assert.deepEqual(rollbackViolations(before, now, [{ table: 't', reason: 'not a drop' }]).map(formatViolation), [
    't.old_name: column dropped',
    'gone: table dropped',
  ]);
});

test('ENUM values are read with their quotes undone', () => {
  assert.deepEqual(listedValues("enum('a','it''s','b,c')"), ['a', "it's", 'b,c']);
  assert.deepEqual(listedValues("set('x')"), ['x']);
});
