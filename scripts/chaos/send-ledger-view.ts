import type { Pool } from '../../adapters/mariadb/pool';

export interface SendRow {
  draftId: string;
  emailId: string;
  messageId: string;
  status: string;
  /** The last SMTP phase the attempt recorded (`claimed`, …, `data_end`), null before the first. */
  phase: string | null;
}

/** The `send_attempts` ledger (one row per draft) and the drafts whose send is `in_doubt` there. */
export async function readSends(pool: Pool): Promise<{ rows: SendRow[]; inDoubt: Set<string> }> {
  const rows = (
    (await pool.query('SELECT draft_id, email_id, message_id, status, phase FROM send_attempts ORDER BY id')) as Array<{
      draft_id: string;
      email_id: string;
      message_id: string;
      status: string;
      phase: string | null;
    }>
  ).map((r) => ({ draftId: r.draft_id, emailId: r.email_id, messageId: r.message_id, status: r.status, phase: r.phase }));
  return { rows, inDoubt: new Set(rows.filter((r) => r.status === 'in_doubt').map((r) => r.draftId)) };
}
