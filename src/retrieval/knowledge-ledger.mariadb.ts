import type { KnowledgeLedger } from './knowledge.port';
import { query, type Pool } from '../platform/pool.mariadb';

export function createMariaDbKnowledgeLedger(pool: Pool): KnowledgeLedger {
  return {
    async list(): Promise<Map<string, string>> {
      const rows = await query<Array<{ path: string; sha256: string }>>(
        pool,
        'listing knowledge files',
        'SELECT path, sha256 FROM knowledge_files',
      );
      return new Map(rows.map((r) => [r.path, r.sha256]));
    },
    async record(path: string, sha256: string, passages: number): Promise<void> {
      await query(
        pool,
        'recording a knowledge file',
        `INSERT INTO knowledge_files (path, sha256, passages) VALUES (?, ?, ?)
         ON DUPLICATE KEY UPDATE sha256 = VALUES(sha256), passages = VALUES(passages)`,
        [path, sha256, passages],
      );
    },
    async forget(path: string): Promise<void> {
      await query(pool, 'forgetting a knowledge file', 'DELETE FROM knowledge_files WHERE path = ?', [path]);
    },
  };
}
