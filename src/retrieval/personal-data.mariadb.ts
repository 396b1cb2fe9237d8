import { answeredEmailId } from '../retrieval/composite-index';
import { knownFromMails, NO_KNOWN_DATA, type KnownPersonalData } from './known-personal-data';
import type { PersonalDataLookup } from './personal-data.port';
import { query, type Pool } from '../platform/pool.mariadb';

/** Mails of a thread read for known data: enough for every name and signature, bounded. */
const THREAD_MAILS = 20;

interface MailRow {
  from_name: string | null;
  from_address: string | null;
  reply_to_name: string | null;
  reply_to_address: string | null;
  text_body: string | null;
}

/**
 * Known personal data of the correspondent behind a source: the answered email's sender and
 * everyone else who wrote in its thread (their inbound mail only: our replies carry our own names).
 */
export function createMariaDbPersonalData(pool: Pool): PersonalDataLookup {
  async function one(sourceId: string): Promise<KnownPersonalData> {
    const emailId = answeredEmailId(sourceId) ?? sourceId;
    const rows = await query<MailRow[]>(
      pool,
      'reading what is known about a correspondent',
      `SELECT e.from_name, e.from_address, e.reply_to_name, e.reply_to_address, e.text_body
         FROM emails o JOIN emails e ON e.id = o.id OR (o.thread_id IS NOT NULL AND e.thread_id = o.thread_id)
        WHERE o.id = ?
        ORDER BY e.id = o.id DESC, e.created_at DESC
        LIMIT ${THREAD_MAILS}`,
      [emailId],
    );
    if (rows.length === 0) return NO_KNOWN_DATA;
    return knownFromMails(
      rows.map((r) => ({
        fromName: r.from_name,
        fromAddress: r.from_address,
        replyToName: r.reply_to_name,
        replyToAddress: r.reply_to_address,
        text: r.text_body,
      })),
    );
  }
  return {
    async knownFor(sourceIds) {
      const out = new Map<string, KnownPersonalData>();
      for (const id of new Set(sourceIds)) out.set(id, await one(id));
      return out;
    },
  };
}
