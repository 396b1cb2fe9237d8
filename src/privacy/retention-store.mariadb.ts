/**
 * Retention in MariaDB: each purge is one bounded batch (LIMIT) in its own transaction, chosen
 * by age, so it can stop and continue at any point and never holds locks for long.
 */
import { ENDED_STATUSES } from '../email';
import type { RetentionKind, RetentionStore } from './retention-store.port';
import { query, sqlList, type Pool, type Queryable } from '../platform/pool.mariadb';
import { inTransaction } from '../platform/transaction.mariadb';

const ENDED = sqlList(ENDED_STATUSES);
const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');
const affected = (r: unknown) => Number((r as { affectedRows?: number }).affectedRows ?? 0);

/** The email ids of one batch, picked inside the transaction that purges them. */
async function pick(conn: Queryable, what: string, sql: string, params: unknown[]): Promise<string[]> {
  return (await query<Array<{ id: string }>>(conn, what, sql, params)).map((r) => r.id);
}

const RAW_EXPIRED = `SELECT r.email_id AS id FROM raw_messages r JOIN emails e ON e.id = r.email_id
  WHERE e.status IN (${ENDED}) AND e.status_changed_at < ?`;
const BODIES_EXPIRED = `SELECT id FROM emails WHERE status IN (${ENDED}) AND status_changed_at < ?
  AND (text_body IS NOT NULL OR subject IS NOT NULL)`;
// A correspondent with any unfinished email keeps their passages: a draft may still need them.
/** Replay rows of runs started before the cut-off (src/replay/): the run row itself holds counts only and stays. */
const REPLAY_EXPIRED = `SELECT m.run_id, m.message_key FROM replay_messages m JOIN replay_runs r ON r.id = m.run_id WHERE r.created_at < ?`;
const PASSAGES_EXPIRED = `SELECT DISTINCT p.email_id AS id FROM passages p
  WHERE p.direction <> 'knowledge' AND p.created_at < ?
  AND NOT EXISTS (SELECT 1 FROM emails o WHERE o.from_address = p.correspondent AND o.status NOT IN (${ENDED}))`;

export function createMariaDbRetentionStore(pool: Pool): RetentionStore {
  return {
    async purgeBatch(kind, cutoff, limit) {
      return inTransaction(pool, `purging expired ${kind}`, async (conn) => {
        if (kind === 'audit' || kind === 'access_log') {
          const table = kind === 'audit' ? 'audit_log' : 'access_log';
          return affected(
            await query(conn, `purging ${table}`, `DELETE FROM ${table} WHERE created_at < ? ORDER BY created_at LIMIT ?`, [cutoff, limit]),
          );
        }
        if (kind === 'replay') return purgeReplay(conn, cutoff, limit);
        if (kind === 'raw_mail') {
          const ids = await pick(conn, 'finding expired raw mail', `${RAW_EXPIRED} LIMIT ? FOR UPDATE`, [cutoff, limit]);
          if (ids.length === 0) return 0;
          await query(conn, 'purging raw message parts', `DELETE FROM raw_message_parts WHERE email_id IN (${marks(ids.length)})`, ids);
          await query(conn, 'purging raw messages', `DELETE FROM raw_messages WHERE email_id IN (${marks(ids.length)})`, ids);
          // Attachments are part of the message as received: they go with it (and what was read from them).
          for (const table of ['email_attachment_texts', 'email_attachment_parts', 'email_attachments']) {
            await query(conn, `purging ${table}`, `DELETE FROM ${table} WHERE email_id IN (${marks(ids.length)})`, ids);
          }
          return ids.length;
        }
        const ids = await pick(conn, 'finding expired bodies', `${BODIES_EXPIRED} LIMIT ? FOR UPDATE`, [cutoff, limit]);
        if (ids.length === 0) return 0;
        const m = marks(ids.length);
        await query(
          conn,
          'purging bodies',
          `UPDATE emails SET text_body = NULL, subject = NULL, attachments = NULL WHERE id IN (${m})`,
          ids,
        );
        await query(
          conn,
          'purging drafts',
          `UPDATE drafts SET subject = '', body = '', approved_body = NULL, decision_reason = NULL WHERE email_id IN (${m})`,
          ids,
        );
        // A claim is a sentence of the draft's body: it goes with the body.
        await query(conn, 'purging draft claims', `DELETE FROM draft_claims WHERE email_id IN (${m})`, ids);
        await query(
          conn,
          'purging send details',
          `UPDATE send_attempts SET envelope = NULL, smtp_response = NULL WHERE email_id IN (${m})`,
          ids,
        );
        return ids.length;
      });
    },

    async expiredPassageSources(cutoff, limit) {
      return pick(pool, 'finding expired passages', `${PASSAGES_EXPIRED} LIMIT ?`, [cutoff, limit]);
    },

    async countExpired(kind: RetentionKind, cutoff) {
      const sql =
        kind === 'audit'
          ? 'SELECT COUNT(*) AS n FROM audit_log WHERE created_at < ?'
          : kind === 'access_log'
            ? 'SELECT COUNT(*) AS n FROM access_log WHERE created_at < ?'
            : kind === 'replay'
              ? `SELECT COUNT(*) AS n FROM (${REPLAY_EXPIRED}) x`
              : `SELECT COUNT(*) AS n FROM (${kind === 'raw_mail' ? RAW_EXPIRED : kind === 'bodies' ? BODIES_EXPIRED : PASSAGES_EXPIRED}) x`;
      const rows = await query<Array<{ n: number | bigint }>>(pool, `counting expired ${kind}`, sql, [cutoff]);
      return Number(rows[0]?.n ?? 0);
    },
  };
}

/** One batch of expired replay mail, with the pairs and results it belongs to; counts the messages. */
async function purgeReplay(conn: Queryable, cutoff: Date, limit: number): Promise<number> {
  const rows = await query<Array<{ run_id: string; message_key: string }>>(
    conn,
    'finding expired replay mail',
    `${REPLAY_EXPIRED} LIMIT ? FOR UPDATE`,
    [cutoff, limit],
  );
  for (const r of rows) {
    await query(conn, 'purging replay results', 'DELETE FROM replay_results WHERE run_id = ? AND pair_id = ?', [r.run_id, r.message_key]);
    await query(conn, 'purging replay pairs', 'DELETE FROM replay_pairs WHERE run_id = ? AND (pair_id = ? OR reply_key = ?)', [
      r.run_id,
      r.message_key,
      r.message_key,
    ]);
    await query(conn, 'purging replayed mail', 'DELETE FROM replay_messages WHERE run_id = ? AND message_key = ?', [
      r.run_id,
      r.message_key,
    ]);
  }
  return rows.length;
}
