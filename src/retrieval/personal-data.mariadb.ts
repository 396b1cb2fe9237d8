import { answeredEmailId } from '../retrieval/composite-index';
import { knownFromMails, NO_KNOWN_DATA, type KnownPersonalData } from './known-personal-data';
import type { PersonalDataLookup } from './personal-data.port';
import { query, type Pool } from '../platform/pool.mariadb';

/** Mails of a thread read for known data: enough for every name and signature, bounded. */
const THREAD_MAILS = 20;

interface MailRow {
  /** The email id asked about (the row's group). */
  asked: string;
  from_name: string | null;
  from_address: string | null;
  reply_to_name: string | null;
  reply_to_address: string | null;
  text_body: string | null;
}

/**
 * Known personal data of the correspondent behind a source: the answered email's sender and
 * everyone else who wrote in its thread (their inbound mail only: our replies carry our own names).
 * All sources of a draft in one statement (each source's newest THREAD_MAILS mails, the answered
 * one first): a round trip per source cost more than its rows.
 */
export function createMariaDbPersonalData(pool: Pool): PersonalDataLookup {
  async function mailsOf(emailIds: string[]): Promise<Map<string, MailRow[]>> {
    const rows = await query<MailRow[]>(
      pool,
      'reading what is known about correspondents',
      `SELECT asked, from_name, from_address, reply_to_name, reply_to_address, text_body FROM (
         SELECT o.id AS asked, e.from_name, e.from_address, e.reply_to_name, e.reply_to_address, e.text_body,
                ROW_NUMBER() OVER (PARTITION BY o.id ORDER BY e.id = o.id DESC, e.created_at DESC) AS n
           FROM emails o JOIN emails e ON e.id = o.id OR (o.thread_id IS NOT NULL AND e.thread_id = o.thread_id)
          WHERE o.id IN (${emailIds.map(() => '?').join(', ')})
       ) AS mails
       WHERE n <= ${THREAD_MAILS}
       ORDER BY asked, n`,
      emailIds,
    );
    const out = new Map<string, MailRow[]>();
    for (const r of rows) out.set(r.asked, [...(out.get(r.asked) ?? []), r]);
    return out;
  }
  return {
    async knownFor(sourceIds) {
      const out = new Map<string, KnownPersonalData>();
      const ids = [...new Set(sourceIds)];
      if (ids.length === 0) return out;
      const emailOf = (sourceId: string) => answeredEmailId(sourceId) ?? sourceId;
      const mails = await mailsOf([...new Set(ids.map(emailOf))]);
      for (const id of ids) {
        const rows = mails.get(emailOf(id)) ?? [];
        out.set(
          id,
          rows.length === 0
            ? NO_KNOWN_DATA
            : knownFromMails(
                rows.map((r) => ({
                  fromName: r.from_name,
                  fromAddress: r.from_address,
                  replyToName: r.reply_to_name,
                  replyToAddress: r.reply_to_address,
                  text: r.text_body,
                })),
              ),
        );
      }
      return out;
    },
  };
}
