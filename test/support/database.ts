import { randomBytes } from 'node:crypto';
import { dropDatabase, migrate } from '../../src/platform/migrate.mariadb';
import { createPool, type Pool } from '../../src/platform/pool.mariadb';

/** A migrated throwaway database on the real MariaDB server of DATABASE_URL; dropped afterwards. */
export async function createTestDatabase(prefix = 'test'): Promise<{ url: string; pool: Pool; drop(): Promise<void> }> {
  const base = new URL(process.env.DATABASE_URL?.trim() || 'mariadb://root@127.0.0.1:3306/email_rag');
  base.pathname = `/email_rag_${prefix}_${randomBytes(4).toString('hex')}`;
  const url = base.toString();
  await migrate(url);
  const pool = createPool(url, 4);
  return {
    url,
    pool,
    async drop() {
      await pool.end().catch(() => undefined);
      await dropDatabase(url);
    },
  };
}
