/**
 * Guidance versions in MariaDB (`guidance_versions`, migration 030). Rows are only ever inserted:
 * a new version is numbered one above its scope's newest, and the unique key on (scope, version)
 * makes two people saving the same scope at once land one after the other (the loser asks again).
 */
import { query, type Pool, type Queryable } from '../platform/pool.mariadb';
import { inTransaction } from '../platform/transaction.mariadb';
import type { GuidanceScope, GuidanceStore, GuidanceVersion } from './guidance.port';

interface Row {
  id: number | bigint;
  mailbox_id: string;
  category: string;
  version: number;
  text: string;
  author: string;
  created_at: Date;
}

const toVersion = (r: Row): GuidanceVersion => ({
  id: Number(r.id),
  scope: { mailboxId: r.mailbox_id || null, category: r.category || null },
  version: Number(r.version),
  text: r.text,
  author: r.author,
  createdAt: r.created_at,
});

/** The stored form of a scope: '' for "any". */
const key = (s: GuidanceScope): [string, string] => [s.mailboxId ?? '', s.category ?? ''];

/** The newest row of each scope (the scopes' current texts). */
const CURRENT = `SELECT g.* FROM guidance_versions g
  JOIN (SELECT mailbox_id, category, MAX(version) AS version FROM guidance_versions GROUP BY mailbox_id, category) n
    ON n.mailbox_id = g.mailbox_id AND n.category = g.category AND n.version = g.version`;

async function newest(db: Queryable, scope: GuidanceScope, lock: boolean): Promise<GuidanceVersion | null> {
  const rows = await query<Row[]>(
    db,
    'reading the current guidance',
    `SELECT * FROM guidance_versions WHERE mailbox_id = ? AND category = ? ORDER BY version DESC LIMIT 1${lock ? ' FOR UPDATE' : ''}`,
    key(scope),
  );
  return rows[0] ? toVersion(rows[0]) : null;
}

/** Another save of the same scope got there first (its number taken, or the gap lock it held). */
const collided = (err: unknown): boolean => /Duplicate entry|Deadlock found/i.test(err instanceof Error ? err.message : String(err));

/** Mailboxes whose current guidance a worker remembers (each a few scopes' texts). */
const REMEMBERED_MAILBOXES = 256;

export function createMariaDbGuidanceStore(pool: Pool): GuidanceStore {
  /**
   * The current guidance per mailbox as last read, with the table's row count and highest id then.
   * Rows are only ever inserted, so the same count and highest id mean the same rows: the count
   * also moves when a save with a lower id commits after one with a higher id.
   */
  const remembered = new Map<string, { stamp: string; versions: GuidanceVersion[] }>();
  const addOnce = (scope: GuidanceScope, text: string, author: string) =>
    inTransaction(pool, 'saving guidance', async (conn) => {
      const current = await newest(conn, scope, true);
      if (current && current.text === text) return { created: false, version: current };
      const result = await query<{ insertId: number | bigint }>(
        conn,
        'saving guidance',
        'INSERT INTO guidance_versions (mailbox_id, category, version, text, author) VALUES (?, ?, ?, ?, ?)',
        [...key(scope), (current?.version ?? 0) + 1, text, author],
      );
      const rows = await query<Row[]>(conn, 'reading the saved guidance', 'SELECT * FROM guidance_versions WHERE id = ?', [
        result.insertId,
      ]);
      return { created: true, version: toVersion(rows[0]!) };
    });
  return {
    async add(scope, text, author) {
      try {
        return await addOnce(scope, text, author);
      } catch (err) {
        // Someone saved the same scope at the same moment: number this one after theirs.
        if (!collided(err)) throw err;
        return addOnce(scope, text, author);
      }
    },
    async currentOf(scopes) {
      if (scopes.length === 0) return [];
      const where = scopes.map(() => '(mailbox_id = ? AND category = ?)').join(' OR ');
      const rows = await query<Row[]>(
        pool,
        'reading the guidance of a draft',
        `SELECT g.* FROM guidance_versions g
          JOIN (SELECT mailbox_id, category, MAX(version) AS version FROM guidance_versions WHERE ${where} GROUP BY mailbox_id, category) n
            ON n.mailbox_id = g.mailbox_id AND n.category = g.category AND n.version = g.version`,
        scopes.flatMap(key),
      );
      return rows.map(toVersion);
    },
    async currentForMailbox(mailboxId) {
      // Every draft asks; the answer changes only with a new row. How many rows there are and the
      // highest id (one pass over the smallest index, a few hundred entries at most) say whether
      // the remembered answer is still the current one.
      const [count] = await query<Array<{ n: unknown; id: unknown }>>(
        pool,
        'counting the guidance versions',
        'SELECT COUNT(*) AS n, MAX(id) AS id FROM guidance_versions',
      );
      const stamp = `${String(count?.n)}:${String(count?.id)}`;
      const kept = remembered.get(mailboxId);
      if (kept && kept.stamp === stamp) return kept.versions;
      const rows = await query<Row[]>(
        pool,
        'reading the guidance of a mailbox',
        `SELECT g.* FROM guidance_versions g
          JOIN (SELECT mailbox_id, category, MAX(version) AS version FROM guidance_versions
                 WHERE mailbox_id IN ('', ?) GROUP BY mailbox_id, category) n
            ON n.mailbox_id = g.mailbox_id AND n.category = g.category AND n.version = g.version`,
        [mailboxId],
      );
      const versions = rows.map(toVersion);
      if (remembered.size >= REMEMBERED_MAILBOXES) remembered.delete(remembered.keys().next().value as string);
      remembered.set(mailboxId, { stamp, versions });
      return versions;
    },
    async listCurrent() {
      const rows = await query<Row[]>(pool, 'listing the guidance', `${CURRENT} ORDER BY g.mailbox_id, g.category`);
      return rows.map(toVersion);
    },
    async history(scope) {
      const rows = await query<Row[]>(
        pool,
        'reading the guidance history',
        'SELECT * FROM guidance_versions WHERE mailbox_id = ? AND category = ? ORDER BY version DESC',
        key(scope),
      );
      return rows.map(toVersion);
    },
    async byIds(ids) {
      if (ids.length === 0) return [];
      const rows = await query<Row[]>(
        pool,
        'reading guidance versions',
        `SELECT * FROM guidance_versions WHERE id IN (${ids.map(() => '?').join(', ')}) ORDER BY id`,
        [...ids],
      );
      return rows.map(toVersion);
    },
  };
}
