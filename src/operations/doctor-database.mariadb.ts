/** `email-rag doctor`'s questions to MariaDB: does it answer, which migrations ran, which vectors and inbox users it holds. */
import { migrationStatus } from '../platform/migrate.mariadb';
import { createPool, query, type Pool } from '../platform/pool.mariadb';
import type { DoctorDatabase } from './doctor.port';

/** Opens a small pool and asks the server's version; throws the driver's error when it does not answer. */
export async function openDoctorDatabase(databaseUrl: string): Promise<{ database: DoctorDatabase; close(): Promise<void> }> {
  // A person waits for the verdict: give up within seconds, not the worker's patient 10 s.
  const pool = createPool(databaseUrl, 2, 4_000);
  let version: string;
  try {
    const [row] = await query<Array<{ v: string }>>(pool, 'asking the server version', 'SELECT VERSION() AS v');
    version = row?.v ?? '?';
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  return { database: doctorDatabase(pool, version), close: () => pool.end() };
}

function doctorDatabase(pool: Pool, version: string): DoctorDatabase {
  return {
    version,
    migrations: () => migrationStatus(pool),
    async storedVectors() {
      // By the index on embedding_model: one count per model, then one vector's length of each.
      const models = await query<Array<{ model: string; n: unknown }>>(
        pool,
        'counting stored vectors per model',
        `SELECT embedding_model AS model, COUNT(*) AS n FROM passages WHERE embedding_model IS NOT NULL GROUP BY embedding_model
         UNION ALL
         SELECT embedding_model AS model, COUNT(*) AS n FROM knowledge_passages WHERE embedding_model IS NOT NULL GROUP BY embedding_model`,
      );
      const counts = new Map<string, number>();
      for (const r of models) counts.set(r.model, (counts.get(r.model) ?? 0) + Number(r.n));
      const found: Array<{ model: string; passages: number; dimensions: number }> = [];
      for (const [model, passages] of counts) {
        const [one] = await query<Array<{ bytes: unknown }>>(
          pool,
          'reading one stored vector',
          `SELECT bytes FROM (
             (SELECT LENGTH(embedding) AS bytes FROM passages WHERE embedding_model = ? AND embedding IS NOT NULL LIMIT 1)
             UNION ALL
             (SELECT LENGTH(embedding) AS bytes FROM knowledge_passages WHERE embedding_model = ? AND embedding IS NOT NULL LIMIT 1)
           ) AS one LIMIT 1`,
          [model, model],
        );
        // float32: four bytes a dimension (retrieval/vectors.ts).
        found.push({ model, passages, dimensions: Number(one?.bytes ?? 0) / 4 });
      }
      return found;
    },
    async inboxUsers() {
      const [row] = await query<Array<{ enabled: unknown; operators: unknown }>>(
        pool,
        'counting review inbox users',
        `SELECT COUNT(*) AS enabled, COALESCE(SUM(role = 'operator'), 0) AS operators FROM inbox_users WHERE disabled_at IS NULL`,
      );
      return { enabled: Number(row?.enabled ?? 0), operators: Number(row?.operators ?? 0) };
    },
  };
}
