import { WATCHER_STATES, type WatcherState } from './mailboxes.contract';
import type { WatcherHealth, WatcherRow } from './watcher-health.port';
import { query, type Pool } from '../platform/pool.mariadb';

/** IDLE watcher bookkeeping in `mailbox_watchers`; upserts on (mailbox_id, folder). */
export function createMariaDbWatcherHealth(pool: Pool): WatcherHealth {
  return {
    async enter({ mailboxId, folder, state, error }) {
      const reconnect = state === WATCHER_STATES.reconnecting ? 1 : 0;
      await query(
        pool,
        'recording a watcher state',
        // `since` moves only when the state changes: a watcher failing again stays reconnecting since its first failure.
        `INSERT INTO mailbox_watchers (mailbox_id, folder, state, since, seen_at, last_error, last_error_at, reconnects)
         VALUES (?, ?, ?, NOW(3), NOW(3), ?, IF(? IS NULL, NULL, NOW(3)), ?)
         ON DUPLICATE KEY UPDATE since = IF(state = VALUES(state), since, NOW(3)), state = VALUES(state), seen_at = NOW(3),
           last_error = COALESCE(VALUES(last_error), last_error), last_error_at = COALESCE(VALUES(last_error_at), last_error_at),
           reconnects = reconnects + VALUES(reconnects)`,
        [mailboxId, folder, state, error?.slice(0, 2000) ?? null, error ?? null, reconnect],
      );
    },
    async seen({ mailboxId, folder }) {
      await query(
        pool,
        'recording a watcher heartbeat',
        'UPDATE mailbox_watchers SET seen_at = NOW(3) WHERE mailbox_id = ? AND folder = ?',
        [mailboxId, folder],
      );
    },
    async wokeUp({ mailboxId, folder }) {
      await query(
        pool,
        'recording a watcher wake-up',
        'UPDATE mailbox_watchers SET wakeups = wakeups + 1, seen_at = NOW(3) WHERE mailbox_id = ? AND folder = ?',
        [mailboxId, folder],
      );
    },
    async list(): Promise<WatcherRow[]> {
      const rows = await query<
        Array<{
          mailbox_id: string;
          folder: string;
          state: WatcherState;
          since: Date;
          seen_ago: number | string;
          last_error: string | null;
          last_error_at: Date | null;
          reconnects: number;
          wakeups: number;
        }>
      >(
        pool,
        'reading watcher health',
        `SELECT mailbox_id, folder, state, since, TIMESTAMPDIFF(SECOND, seen_at, NOW(3)) AS seen_ago, last_error, last_error_at,
           reconnects, wakeups FROM mailbox_watchers ORDER BY mailbox_id, folder`,
      );
      return rows.map((r) => ({
        mailboxId: r.mailbox_id,
        folder: r.folder,
        state: r.state,
        since: r.since,
        secondsSinceSeen: Number(r.seen_ago),
        lastError: r.last_error,
        lastErrorAt: r.last_error_at,
        reconnects: Number(r.reconnects),
        wakeups: Number(r.wakeups),
      }));
    },
  };
}
