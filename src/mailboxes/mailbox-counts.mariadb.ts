import { query, type Pool } from '../platform/pool.mariadb';

/** Emails per status for each mailbox (emails.mailbox_id), read through ix_emails_mailbox_status. */
export async function countEmailsByMailbox(pool: Pool): Promise<Record<string, Record<string, number>>> {
  const rows = await query<Array<{ mailbox_id: string; status: string; n: number }>>(
    pool,
    'counting emails per mailbox',
    'SELECT mailbox_id, status, COUNT(*) AS n FROM emails GROUP BY mailbox_id, status',
  );
  const out: Record<string, Record<string, number>> = {};
  for (const r of rows) (out[r.mailbox_id] ??= {})[r.status] = Number(r.n);
  return out;
}
