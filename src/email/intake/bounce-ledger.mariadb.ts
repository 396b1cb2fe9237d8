import type { BouncedSend, BounceLedger } from './bounce-ledger.port';
import { SEND_STATUS } from '../email-status';
import { query, sqlList, type Pool } from '../../platform/pool.mariadb';

/** A bounce quotes a handful of IDs; more is noise (or a crafted message) and is cut. */
const MAX_IDS = 50;

export function createMariaDbBounceLedger(pool: Pool): BounceLedger {
  return {
    async markBounced(messageIds: string[]): Promise<BouncedSend[]> {
      const ids = [...new Set(messageIds)].filter((id) => id.length <= 998).slice(0, MAX_IDS);
      if (ids.length === 0) return [];
      const rows = await query<Array<{ draft_id: string; email_id: string; message_id: string; status: string }>>(
        pool,
        'finding the bounced send',
        `SELECT draft_id, email_id, message_id, status FROM send_attempts
         WHERE message_id IN (${ids.map(() => '?').join(',')}) AND status IN (${sqlList([SEND_STATUS.sent, SEND_STATUS.bounced])})`,
        ids,
      );
      const out: BouncedSend[] = [];
      for (const r of rows) {
        let changed = false;
        if (r.status === SEND_STATUS.sent) {
          // Compare-and-set: only a send that went out can bounce, and only once.
          const res = await query<{ affectedRows: number }>(
            pool,
            'marking the send bounced',
            `UPDATE send_attempts SET status = '${SEND_STATUS.bounced}' WHERE draft_id = ? AND status = '${SEND_STATUS.sent}'`,
            [r.draft_id],
          );
          changed = res.affectedRows > 0;
        }
        out.push({ draftId: r.draft_id, emailId: r.email_id, messageId: r.message_id, changed });
      }
      return out;
    },
  };
}
