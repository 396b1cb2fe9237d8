/**
 * Review-inbox sessions in MariaDB (table inbox_sessions), so that every inbox process sees the
 * same sessions and a restart signs no one out. The store speaks @fastify/session's callback
 * interface; ending the sessions of a person (disabled, role changed, "sign out everywhere") is a
 * plain DELETE by user name that every process notices on the next request.
 */
import { createHash } from 'node:crypto';
import type { SessionStore } from '@fastify/session';
import { query, type Pool } from '../platform/pool.mariadb';

export interface SessionStoreOptions {
  /** No request for this long ends a session (anonymous or signed in). */
  idleMinutes: number;
  /** The absolute end, counted from the session id's first save (a login makes a new id). */
  maxHours: number;
}

/** What the store reads from a session to fill its columns; the rest is kept as JSON. */
interface StoredShape {
  user?: { name: string; role: string };
  signIn?: { address?: string; agent?: string };
}

interface Row {
  data: string;
  expired: number;
  idle: number;
  stale_seen: number;
}

/** Only the hash is stored: the table alone does not let anyone present a session. */
export function sessionIdHash(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}

/** last_seen_at is written at most this often: a busy reviewer is not one UPDATE per click. */
const SEEN_EVERY_SECONDS = 60;
/** Expired rows are deleted by the process that writes, at most this often. */
const PURGE_EVERY_MS = 10 * 60_000;

export function createMariaDbSessionStore(pool: Pool, opts: SessionStoreOptions) {
  let lastPurge = 0;
  const purge = async () => {
    if (Date.now() - lastPurge < PURGE_EVERY_MS) return;
    lastPurge = Date.now();
    await query(
      pool,
      'purging ended inbox sessions',
      `DELETE FROM inbox_sessions
        WHERE expires_at <= CURRENT_TIMESTAMP(3) OR last_seen_at <= CURRENT_TIMESTAMP(3) - INTERVAL ? MINUTE LIMIT 5000`,
      [opts.idleMinutes],
    );
  };

  const destroy = async (sessionId: string): Promise<void> => {
    await query(pool, 'ending an inbox session', 'DELETE FROM inbox_sessions WHERE id_hash = ?', [sessionIdHash(sessionId)]);
  };

  const get = async (sessionId: string): Promise<unknown> => {
    const hash = sessionIdHash(sessionId);
    const rows = await query<Row[]>(
      pool,
      'reading an inbox session',
      `SELECT data, expires_at <= CURRENT_TIMESTAMP(3) AS expired,
              last_seen_at <= CURRENT_TIMESTAMP(3) - INTERVAL ? MINUTE AS idle,
              last_seen_at <= CURRENT_TIMESTAMP(3) - INTERVAL ? SECOND AS stale_seen
         FROM inbox_sessions WHERE id_hash = ?`,
      [opts.idleMinutes, SEEN_EVERY_SECONDS, hash],
    );
    const row = rows[0];
    if (!row) return null;
    if (Number(row.expired) || Number(row.idle)) {
      await destroy(sessionId);
      return null;
    }
    if (Number(row.stale_seen)) {
      await query(
        pool,
        'noting an inbox session as seen',
        'UPDATE inbox_sessions SET last_seen_at = CURRENT_TIMESTAMP(3) WHERE id_hash = ?',
        [hash],
      );
    }
    return JSON.parse(row.data) as unknown;
  };

  const set = async (sessionId: string, session: StoredShape): Promise<void> => {
    // expires_at is set once per id: saving a changed session never extends its absolute end.
    await query(
      pool,
      'saving an inbox session',
      `INSERT INTO inbox_sessions (id_hash, user_name, role, data, expires_at, address, user_agent)
       VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP(3) + INTERVAL ? MINUTE, ?, ?)
       ON DUPLICATE KEY UPDATE user_name = VALUES(user_name), role = VALUES(role), data = VALUES(data),
         address = COALESCE(address, VALUES(address)), user_agent = COALESCE(user_agent, VALUES(user_agent)),
         last_seen_at = CURRENT_TIMESTAMP(3)`,
      [
        sessionIdHash(sessionId),
        session.user?.name ?? null,
        session.user?.role ?? null,
        JSON.stringify(session),
        Math.round(opts.maxHours * 60),
        session.signIn?.address?.slice(0, 45) ?? null,
        session.signIn?.agent?.slice(0, 160) ?? null,
      ],
    );
    await purge();
  };

  const fastifyStore: SessionStore = {
    get: (id, cb) => void get(id).then((s) => cb(null, s as Parameters<typeof cb>[1]), cb),
    set: (id, session, cb) => void set(id, session as StoredShape).then(() => cb(), cb),
    destroy: (id, cb) => void destroy(id).then(() => cb(), cb),
  };

  return {
    /** For `@fastify/session`'s `store` option. */
    fastifyStore,
    /** Ends every session of a person at once (all processes); returns how many were open. */
    async endSessionsOf(name: string): Promise<number> {
      const r = await query<{ affectedRows: number }>(
        pool,
        'ending the inbox sessions of a user',
        'DELETE FROM inbox_sessions WHERE user_name = ?',
        [name],
      );
      return r.affectedRows;
    },
  };
}
export type InboxSessions = ReturnType<typeof createMariaDbSessionStore>;
