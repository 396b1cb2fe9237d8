import type { Client } from '@temporalio/client';
import type { Pool } from '../../adapters/mariadb/pool';

export interface SendRow {
  draftId: string;
  emailId: string;
  messageId: string;
  status: string;
}

/**
 * Which sends wait for a person because their hand-over may have happened, in either
 * representation: a `send_attempts` row `in_doubt`, or (older code) a row left `sending` that the
 * workflow reported as in doubt (audit `send_in_doubt`, or its `state` query says so).
 */
export async function readSends(pool: Pool, client: Client): Promise<{ rows: SendRow[]; inDoubt: Set<string> }> {
  const rows = (
    (await pool.query('SELECT draft_id, email_id, message_id, status FROM send_attempts ORDER BY id')) as Array<{
      draft_id: string;
      email_id: string;
      message_id: string;
      status: string;
    }>
  ).map((r) => ({ draftId: r.draft_id, emailId: r.email_id, messageId: r.message_id, status: r.status }));
  const audited = new Set(
    (
      (await pool.query(
        `SELECT DISTINCT email_id FROM audit_log WHERE event_type IN ('send_in_doubt', 'send_waits_for_operator')`,
      )) as Array<{ email_id: string }>
    ).map((r) => r.email_id),
  );
  const inDoubt = new Set<string>();
  for (const row of rows) {
    if (row.status === 'in_doubt') inDoubt.add(row.draftId);
    else if (row.status === 'sending') {
      if (audited.has(row.emailId) || (await stateSaysInDoubt(client, row.emailId))) inDoubt.add(row.draftId);
    }
  }
  return { rows, inDoubt };
}

async function stateSaysInDoubt(client: Client, workflowId: string): Promise<boolean> {
  try {
    const state = await client.workflow.getHandle(workflowId).query<unknown>('state');
    return /in[ _-]?doubt/i.test(JSON.stringify(state));
  } catch {
    return false;
  }
}
