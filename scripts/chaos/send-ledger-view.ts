import type { Pool } from '../../src/platform/pool.mariadb';

export interface SendRow {
  draftId: string;
  emailId: string;
  messageId: string;
  status: string;
  /** The last SMTP phase the attempt recorded (`claimed`, …, `data_end`), null before the first. */
  phase: string | null;
  /** The attempt that last held the row; an in-doubt row keeps the token of the attempt that died. */
  attemptToken: string | null;
}

/** One attempt of one send: what a kill interrupted, and what a row in doubt stems from. */
export const attemptKey = (r: { draftId: string; attemptToken: string | null }): string => `${r.draftId}|${r.attemptToken ?? ''}`;

/** The `send_attempts` ledger (one row per draft) and the drafts whose send is `in_doubt` there. */
export async function readSends(pool: Pool): Promise<{ rows: SendRow[]; inDoubt: Set<string> }> {
  const rows = (
    (await pool.query('SELECT draft_id, email_id, message_id, status, phase, attempt_token FROM send_attempts ORDER BY id')) as Array<{
      draft_id: string;
      email_id: string;
      message_id: string;
      status: string;
      phase: string | null;
      attempt_token: string | null;
    }>
  ).map((r) => ({
    draftId: r.draft_id,
    emailId: r.email_id,
    messageId: r.message_id,
    status: r.status,
    phase: r.phase,
    attemptToken: r.attempt_token,
  }));
  return { rows, inDoubt: new Set(rows.filter((r) => r.status === 'in_doubt').map((r) => r.draftId)) };
}
