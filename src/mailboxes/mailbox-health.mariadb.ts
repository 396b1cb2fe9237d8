import type { MailboxHealth, PollHealth } from './mailbox-health.port';
import { query, type Pool } from '../platform/pool.mariadb';

/** Poll bookkeeping per mailbox and folder in `mailbox_polls`; upserts on the natural key. */
export function createMariaDbMailboxHealth(pool: Pool): MailboxHealth {
  return {
    async recordPollSuccess({ mailboxId, folder, started }) {
      await query(
        pool,
        'recording a successful poll',
        `INSERT INTO mailbox_polls (mailbox_id, folder, last_attempt_at, last_success_at, last_error, last_error_class, failures_in_a_row, last_started)
         VALUES (?, ?, NOW(3), NOW(3), NULL, NULL, 0, ?)
         ON DUPLICATE KEY UPDATE last_attempt_at = NOW(3), last_success_at = NOW(3), last_error = NULL,
           last_error_class = NULL, failures_in_a_row = 0, last_started = VALUES(last_started)`,
        [mailboxId, folder, started],
      );
    },
    async recordPollFailure({ mailboxId, folder, error, errorClass }) {
      // Polls of one mailbox do not overlap (the schedule skips), so read-then-write is enough here.
      const [before] = await query<Array<{ last_error: string | null; failures_in_a_row: number }>>(
        pool,
        'reading the failure before a failed poll',
        'SELECT last_error, failures_in_a_row FROM mailbox_polls WHERE mailbox_id = ? AND folder = ?',
        [mailboxId, folder],
      );
      await query(
        pool,
        'recording a failed poll',
        `INSERT INTO mailbox_polls (mailbox_id, folder, last_attempt_at, last_error, last_error_class, failures_in_a_row)
         VALUES (?, ?, NOW(3), ?, ?, 1)
         ON DUPLICATE KEY UPDATE last_attempt_at = NOW(3), last_error = VALUES(last_error),
           last_error_class = VALUES(last_error_class), failures_in_a_row = failures_in_a_row + 1`,
        [mailboxId, folder, error.slice(0, 2000), errorClass],
      );
      return { standing: before && Number(before.failures_in_a_row) > 0 ? before.last_error : null };
    },
    async list(): Promise<PollHealth[]> {
      const rows = await query<
        Array<{
          mailbox_id: string;
          folder: string;
          last_attempt_at: Date | null;
          last_success_at: Date | null;
          last_error: string | null;
          last_error_class: string | null;
          failures_in_a_row: number;
          last_started: number;
        }>
      >(pool, 'reading poll health', 'SELECT * FROM mailbox_polls ORDER BY mailbox_id, folder');
      return rows.map((r) => ({
        mailboxId: r.mailbox_id,
        folder: r.folder,
        lastAttemptAt: r.last_attempt_at,
        lastSuccessAt: r.last_success_at,
        lastError: r.last_error,
        lastErrorClass: r.last_error_class,
        failuresInARow: Number(r.failures_in_a_row),
        lastStarted: Number(r.last_started),
      }));
    },
  };
}
