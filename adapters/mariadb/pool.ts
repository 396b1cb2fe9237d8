import * as mariadb from 'mariadb';
import { PermanentError, TransientError } from '../../lib/errors';

export type Pool = mariadb.Pool;

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
    throw new PermanentError(`database name "${database}" may only contain letters, digits and _`, 'CONFIG');
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
export function createPool(url: string, size = 5, acquireTimeoutMs = 10_000): Pool {
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

/** Maps a driver failure to the product's error classes, where it is caught. */
export function classifyDbError(err: unknown, what: string): Error {
  const e = err as { code?: string; errno?: number; sqlMessage?: string; message?: string; fatal?: boolean };
  const detail = e.sqlMessage ?? e.message ?? String(err);
  if ((e.code && TRANSIENT_CODES.has(e.code)) || e.fatal) {
    return new TransientError(`MariaDB unavailable during ${what}: ${detail}`, 'DB_UNAVAILABLE', { cause: err });
  }
  return new PermanentError(`MariaDB rejected ${what}: ${detail}`, 'DB_REJECTED', { cause: err });
}

/** Runs one statement; the caller's activity retry handles a server that is down. */
export async function query<T = unknown>(pool: Pool, what: string, sql: string, params: unknown[] = []): Promise<T> {
  try {
    return (await pool.query({ sql, namedPlaceholders: false }, params)) as T;
  } catch (err) {
    throw classifyDbError(err, what);
  }
}
