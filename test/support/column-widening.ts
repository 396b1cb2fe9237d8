/**
 * Whether a column's new type still takes every value the previous release writes into it: the
 * same type or a wider one of its family. Anything else (another family, a shorter length, fewer
 * ENUM values) can make the previous release's writes fail or lose data after a rollback.
 */
import type { ColumnShape } from './schema-snapshot';

const INTEGER_BITS: Record<string, number> = { tinyint: 8, smallint: 16, mediumint: 24, int: 32, bigint: 64 };
const TEXT = new Set(['char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext']);
const BINARY = new Set(['binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob']);
const FLOAT_RANK: Record<string, number> = { float: 1, double: 2 };
const TEMPORAL = new Set(['date', 'datetime', 'timestamp', 'time']);

/** Why `now` cannot hold what `before` held (the type only), or null when it can. */
export function typeNarrowing(before: ColumnShape, now: ColumnShape): string | null {
  const what = `type ${before.columnType} → ${now.columnType}`;
  const b = before.dataType;
  const n = now.dataType;
  if (b in INTEGER_BITS && n in INTEGER_BITS) return integerWidens(before, now) ? null : `${what}: a narrower integer range`;
  if ((b === 'decimal' || b === 'numeric') && (n === 'decimal' || n === 'numeric')) {
    const digits = (c: ColumnShape) => (c.precision ?? 0) - (c.scale ?? 0);
    const wider = digits(now) >= digits(before) && (now.scale ?? 0) >= (before.scale ?? 0);
    return wider ? null : `${what}: fewer digits before or after the point`;
  }
  if (b in FLOAT_RANK && n in FLOAT_RANK) return FLOAT_RANK[n]! >= FLOAT_RANK[b]! ? null : `${what}: less precision`;
  if ((TEXT.has(b) && TEXT.has(n)) || (BINARY.has(b) && BINARY.has(n))) {
    return (now.maxLength ?? 0) >= (before.maxLength ?? 0) ? null : `${what}: shorter (${before.maxLength} → ${now.maxLength})`;
  }
  if ((b === 'enum' && n === 'enum') || (b === 'set' && n === 'set')) {
    const kept = new Set(listedValues(now.columnType));
    const lost = listedValues(before.columnType).filter((v) => !kept.has(v));
    return lost.length === 0 ? null : `${what}: values ${lost.map((v) => `'${v}'`).join(', ')} removed`;
  }
  if (b === 'enum' && TEXT.has(n)) {
    const longest = Math.max(...listedValues(before.columnType).map((v) => v.length));
    return (now.maxLength ?? 0) >= longest ? null : `${what}: too short for the value list`;
  }
  if (TEMPORAL.has(b) && b === n) {
    const wider = (now.datetimePrecision ?? 0) >= (before.datetimePrecision ?? 0);
    return wider ? null : `${what}: fewer fractional seconds`;
  }
  return before.columnType === now.columnType ? null : `${what}: not the same type or a wider one`;
}

function integerWidens(before: ColumnShape, now: ColumnShape): boolean {
  const range = (c: ColumnShape): [bigint, bigint] => {
    const bits = BigInt(INTEGER_BITS[c.dataType]!);
    return c.columnType.includes('unsigned') ? [0n, 2n ** bits - 1n] : [-(2n ** (bits - 1n)), 2n ** (bits - 1n) - 1n];
  };
  const [bMin, bMax] = range(before);
  const [nMin, nMax] = range(now);
  return nMin <= bMin && nMax >= bMax;
}

/** The values of `enum('a','b')` / `set('a','b')`, quotes undone. */
export function listedValues(columnType: string): string[] {
  const inner = /^(?:enum|set)\((.*)\)$/s.exec(columnType)?.[1] ?? '';
  return [...inner.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1]!.replace(/''/g, "'"));
}
