import type { Pool } from '../../src/platform/pool.mariadb';

/**
 * A pool that passes every `query` on to `pool` and keeps its SQL in `sent`: a test counts what a
 * store asks the database (a cache that spares a read, a read by key).
 */
export function recordingPool(pool: Pool): { pool: Pool; sent: string[] } {
  const sent: string[] = [];
  const recording = {
    query: (opts: { sql: string } | string, params?: unknown[]) => {
      sent.push(typeof opts === 'string' ? opts : opts.sql);
      return pool.query(opts, params);
    },
  } as unknown as Pool;
  return { pool: recording, sent };
}
