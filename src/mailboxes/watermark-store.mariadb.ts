import type { Watermark, WatermarkStore } from './watermark-store.port';
import { query, type Pool } from '../platform/pool.mariadb';

export function createMariaDbWatermarkStore(pool: Pool): WatermarkStore {
  return {
    async get(account: string, mailbox: string): Promise<Watermark | null> {
      const rows = await query<Array<{ uid_validity: number; last_uid: number; history_until_uid: number }>>(
        pool,
        'reading the watermark',
        'SELECT uid_validity, last_uid, history_until_uid FROM mailbox_watermarks WHERE account = ? AND mailbox = ?',
        [account, mailbox],
      );
      const r = rows[0];
      return r ? { uidValidity: Number(r.uid_validity), lastUid: Number(r.last_uid), historyUntilUid: Number(r.history_until_uid) } : null;
    },
    async advance(account: string, mailbox: string, mark: Watermark): Promise<void> {
      // Same UIDVALIDITY: only forward. A new UIDVALIDITY replaces the mark (the old UIDs mean nothing).
      await query(
        pool,
        'advancing the watermark',
        `INSERT INTO mailbox_watermarks (account, mailbox, uid_validity, last_uid, history_until_uid) VALUES (?, ?, ?, ?, ?)
         ON DUPLICATE KEY UPDATE
           last_uid = IF(uid_validity = VALUES(uid_validity), GREATEST(last_uid, VALUES(last_uid)), VALUES(last_uid)),
           history_until_uid = IF(uid_validity = VALUES(uid_validity), history_until_uid, VALUES(history_until_uid)),
           uid_validity = VALUES(uid_validity)`,
        [account, mailbox, mark.uidValidity, mark.lastUid, mark.historyUntilUid],
      );
    },
  };
}
