/**
 * Known senders from MariaDB: replies the team sent to the address, and earlier emails from it
 * that a person treated as real mail (their reply was approved or sent, or a person answered it
 * elsewhere). Mail merely drafted does not count: a burst of spam from one address must not make
 * its own later mails known. Both read through an index (ix_drafts_to_address, ix_emails_from_address).
 */
import { query, type Queryable } from '../platform/pool.mariadb';
import type { KnownSenders } from './known-sender.port';

/**
 * The email feature's words, handed in by the wiring (triage does not import the email feature):
 * `handledStatuses`, the email statuses that say a person took the mail for real; `sentDraft`, a
 * draft's status once it was sent.
 */
export function createMariaDbKnownSenders(
  pool: Queryable,
  { handledStatuses, sentDraft }: { handledStatuses: readonly string[]; sentDraft: string },
): KnownSenders {
  return {
    async knownSender(address, exceptEmailId) {
      const a = address.trim().toLowerCase();
      if (!a) return null;
      const replied = await query<Array<{ n: number | bigint }>>(
        pool,
        'looking up replies sent to a sender',
        `SELECT COUNT(*) AS n FROM drafts WHERE to_address = ? AND status = ? AND email_id <> ?`,
        [a, sentDraft, exceptEmailId],
      );
      if (Number(replied[0]?.n ?? 0) > 0) return `${a}: the team sent it a reply before`;
      if (handledStatuses.length === 0) return null;
      const earlier = await query<Array<{ n: number | bigint }>>(
        pool,
        'looking up earlier emails of a sender',
        `SELECT COUNT(*) AS n FROM emails WHERE from_address = ? AND id <> ? AND status IN (${handledStatuses.map(() => '?').join(', ')})`,
        [a, exceptEmailId, ...handledStatuses],
      );
      const n = Number(earlier[0]?.n ?? 0);
      return n > 0 ? `${a}: ${n} earlier email${n === 1 ? '' : 's'} a person took for real` : null;
    },
  };
}
