/** The database's part of readiness: MariaDB answers a query. */
import type { Pool } from '../platform/pool.mariadb';
import { HEALTH_DEPENDENCIES } from './operations.contract';
import type { ReadinessProbe } from './readiness';

/** `host:port/database` of a DATABASE_URL: where, for the reason, without user or password. */
export function databaseWhere(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname}`;
  } catch {
    return 'DATABASE_URL';
  }
}

/** Ready when `SELECT 1` comes back on `pool` (the caller's timeout cuts a pool that waits for a connection). */
export function databaseProbe(pool: Pick<Pool, 'query'>, databaseUrl: string): ReadinessProbe {
  return {
    dependency: HEALTH_DEPENDENCIES.database,
    where: `MariaDB at ${databaseWhere(databaseUrl)}`,
    async run() {
      await pool.query('SELECT 1');
    },
  };
}
