import { FAILURE_TYPES } from './contract';
import * as mariadb from 'mariadb';
import { PermanentError, TransientError } from './errors';

export type Pool = mariadb.Pool;
/** A pool or one connection taken from it (for a transaction). */
export type Queryable = Pick<mariadb.Pool, 'query'>;

/**
 * Words of the product's own vocabulary (statuses, priorities) as an SQL list: `'a', 'b'`. They
 * come from the constants in src/platform/domain.ts, so SQL names a status set the same way as the code.
 * Only for such words, never for input: anything but lower-case letters and `_` is refused.
 */
export function sqlList(words: readonly string[]): string {
  const bad = words.find((w) => !/^[a-z_]+$/.test(w));
  if (bad !== undefined) throw new Error(`not a vocabulary word for SQL: ${JSON.stringify(bad)}`);
  return words.map((w) => `'${w}'`).join(', ');
}

/** Driver error codes meaning "the server is not there right now": retry, never drop the write. */
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ER_GET_CONNECTION_TIMEOUT',
  'ER_CONNECTION_ALREADY_CLOSED',
  'ER_SOCKET_UNEXPECTED_CLOSE',
  'ER_CLOSING_POOL',
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'PROTOCOL_CONNECTION_LOST',
]);

export function parseDatabaseUrl(url: string): mariadb.PoolConfig & { database: string } {
  const u = new URL(url);
  const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || 'email_rag';
  if (!/^[A-Za-z0-9_]+$/.test(database)) {
    throw new PermanentError(`database name "${database}" may only contain letters, digits and _`, FAILURE_TYPES.config);
  }
  return {
    host: u.hostname || '127.0.0.1',
    port: u.port ? Number(u.port) : 3306,
    user: decodeURIComponent(u.username || 'root'),
    password: decodeURIComponent(u.password || ''),
    database,
  };
}

/** A pool that keeps trying to (re)connect, so a MariaDB restart costs waiting, not data. */
export function createPool(url: string, size = 10, acquireTimeoutMs = 10_000): Pool {
  return mariadb.createPool({
    ...parseDatabaseUrl(url),
    connectionLimit: size,
    acquireTimeout: acquireTimeoutMs,
    connectTimeout: 5_000,
    charset: 'utf8mb4',
    timezone: 'Z',
    dateStrings: false,
    bigIntAsNumber: true,
    insertIdAsNumber: true,
    decimalAsNumber: true,
    checkDuplicate: false,
  } as mariadb.PoolConfig);
}

/**
 * Fatal driver errors that are not a lost connection: the server refused this statement or these
 * credentials and will do so again. A statement above max_allowed_packet makes the server close
 * the connection too (ER_NET_PACKET_TOO_LARGE), which once looked like an outage retried forever.
 */
const PERMANENT_CODES = new Set([
  'ER_NET_PACKET_TOO_LARGE',
  'ER_MAX_ALLOWED_PACKET',
  'ER_ACCESS_DENIED_ERROR',
  'ER_DBACCESS_DENIED_ERROR',
  'ER_BAD_DB_ERROR',
  'ER_DATA_TOO_LONG',
  'ER_TRUNCATED_WRONG_VALUE',
  'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD',
  'ER_WARN_DATA_OUT_OF_RANGE',
]);

/** Maps a driver failure to the product's error classes, where it is caught. */
export function classifyDbError(err: unknown, what: string): Error {
  if (err instanceof PermanentError || err instanceof TransientError) return err;
  const e = err as { code?: string; errno?: number; sqlMessage?: string; message?: string; fatal?: boolean };
  const detail = e.sqlMessage ?? e.message ?? String(err);
  if (e.code === 'ER_NET_PACKET_TOO_LARGE' || e.code === 'ER_MAX_ALLOWED_PACKET') {
    return new PermanentError(
      `MariaDB refused ${what}: the statement is larger than the server's max_allowed_packet (${detail.split('\n')[0]})`,
      FAILURE_TYPES.dbPacketTooLarge,
      { cause: err },
    );
  }
  if (e.code && PERMANENT_CODES.has(e.code)) {
    return new PermanentError(`MariaDB rejected ${what}: ${detail.split('\n')[0]}`, FAILURE_TYPES.dbRejected, { cause: err });
  }
  if ((e.code && TRANSIENT_CODES.has(e.code)) || e.fatal) {
    return new TransientError(`MariaDB unavailable during ${what}: ${detail}`, FAILURE_TYPES.dbUnavailable, { cause: err });
  }
  return new PermanentError(`MariaDB rejected ${what}: ${detail}`, FAILURE_TYPES.dbRejected, { cause: err });
}

/** Bytes a statement's parameters take on the wire at most (binary data may be escaped byte by byte). */
function paramBytes(params: unknown[]): number {
  let n = 0;
  for (const p of params) {
    if (Buffer.isBuffer(p)) n += p.length * 2;
    else if (typeof p === 'string') n += Buffer.byteLength(p) * 2;
    else n += 32;
  }
  return n;
}

/** Statements below this size are sent without looking at the server's limit (every server takes 1 MiB). */
const SMALL_STATEMENT = 1024 * 1024;
const packetLimits = new WeakMap<object, Promise<number>>();

/** The server's max_allowed_packet, read once per pool. */
export function maxAllowedPacket(pool: Queryable): Promise<number> {
  let limit = packetLimits.get(pool);
  if (!limit) {
    limit = pool.query('SELECT @@max_allowed_packet AS p').then((rows: Array<{ p: number | bigint }>) => Number(rows[0]?.p ?? 0));
    // A failed lookup (server down) must not stick.
    limit.catch(() => packetLimits.delete(pool));
    packetLimits.set(pool, limit);
  }
  return limit;
}

/**
 * Runs one statement; the caller's activity retry handles a server that is down. A statement
 * that cannot fit the server's max_allowed_packet is refused here, before the server would drop
 * the connection over it (which the driver reports as a reset, i.e. an outage).
 */
export async function query<T = unknown>(pool: Queryable, what: string, sql: string, params: unknown[] = []): Promise<T> {
  try {
    const size = sql.length + paramBytes(params);
    if (size > SMALL_STATEMENT) {
      const limit = await maxAllowedPacket(pool);
      if (limit > 0 && size >= limit) {
        throw new PermanentError(
          `MariaDB cannot take ${what}: up to ${size} bytes in one statement, above the server's max_allowed_packet of ${limit}`,
          FAILURE_TYPES.dbPacketTooLarge,
        );
      }
    }
    return (await pool.query({ sql, namedPlaceholders: false }, params)) as T;
  } catch (err) {
    throw classifyDbError(err, what);
  }
}
