import { classifyDbError, type Pool, type Queryable } from './pool.mariadb';

/** Runs `work` in one transaction on one connection; rolled back on any error, classified as the product's errors. */
export async function inTransaction<T>(pool: Pool, what: string, work: (conn: Queryable) => Promise<T>): Promise<T> {
  let conn;
  try {
    conn = await pool.getConnection();
  } catch (err) {
    throw classifyDbError(err, what);
  }
  try {
    await conn.beginTransaction();
    const result = await work(conn);
    await conn.commit();
    return result;
  } catch (err) {
    await conn.rollback().catch(() => undefined);
    throw classifyDbError(err, what);
  } finally {
    await conn.release().catch(() => undefined);
  }
}
