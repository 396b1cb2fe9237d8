import type { AccessLog, AccessRow } from './access-log.port';
import type { AccessAction } from './privacy.contract';
import { query, type Pool } from '../platform/pool.mariadb';

const DEFAULT_LIMIT = 1000;

interface Row {
  id: number | bigint;
  actor: string;
  action: string;
  email_id: string | null;
  subject_hash: string | null;
  detail: string;
  created_at: Date;
}

export function createMariaDbAccessLog(pool: Pool): AccessLog {
  const recordMany: AccessLog['recordMany'] = async (entries) => {
    if (entries.length === 0) return;
    await query(
      pool,
      'writing the access log',
      `INSERT INTO access_log (actor, action, email_id, subject_hash, detail) VALUES ${entries.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
      entries.flatMap((e) => [e.actor.slice(0, 191), e.action, e.emailId ?? null, e.subjectHash ?? null, (e.detail ?? '').slice(0, 1000)]),
    );
  };
  return {
    record: (e) => recordMany([e]),
    recordMany,
    async list(f) {
      const where: string[] = [];
      const params: unknown[] = [];
      const add = (sql: string, value: unknown) => {
        where.push(sql);
        params.push(value);
      };
      if (f.actor) add('actor = ?', f.actor);
      if (f.emailId) add('email_id = ?', f.emailId);
      if (f.since) add('created_at >= ?', f.since);
      const rows = await query<Row[]>(
        pool,
        'reading the access log',
        `SELECT id, actor, action, email_id, subject_hash, detail, created_at FROM access_log
          ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ${Math.max(1, Math.min(f.limit ?? DEFAULT_LIMIT, 100_000))}`,
        params,
      );
      return rows.map((r): AccessRow => ({
        id: Number(r.id),
        actor: r.actor,
        action: r.action as AccessAction,
        emailId: r.email_id,
        subjectHash: r.subject_hash,
        detail: r.detail,
        at: r.created_at,
      }));
    },
  };
}
