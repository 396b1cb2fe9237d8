/** How long ago each folder was last polled successfully, by the database's clock (`mailbox_polls`). */
import { query, type Pool } from '../platform/pool.mariadb';
import type { PollAge } from './mailbox-readiness';

/** Ages in seconds measured by MariaDB itself, so the worker's clock never enters the comparison. */
export function createMariaDbPollAges(pool: Pool): () => Promise<PollAge[]> {
  return async () => {
    const rows = await query<
      Array<{ mailbox_id: string; folder: string; since_success: number | null; last_error: string | null; failures: number }>
    >(
      pool,
      'reading the poll ages',
      `SELECT mailbox_id, folder, TIMESTAMPDIFF(MICROSECOND, last_success_at, NOW(3)) / 1000000 AS since_success,
              last_error, failures_in_a_row AS failures
       FROM mailbox_polls`,
    );
    return rows.map((r) => ({
      mailboxId: r.mailbox_id,
      folder: r.folder,
      secondsSinceSuccess: r.since_success === null ? null : Math.max(0, Number(r.since_success)),
      lastError: r.last_error,
      failuresInARow: Number(r.failures),
    }));
  };
}
