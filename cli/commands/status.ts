import { createMariaDbDraftStore } from '../../adapters/mariadb/draft-store';
import { createMariaDbJobLedger } from '../../adapters/mariadb/job-ledger';
import { createMariaDbMessageStore } from '../../adapters/mariadb/message-store';
import { createMariaDbSendLedger } from '../../adapters/mariadb/send-ledger';
import type { Config } from '../../lib/config';
import { EMAIL_STATUSES, QUEUE_STATUSES } from '../../lib/domain';
import { connectDatabase } from '../context';

export interface StatusReport {
  emails: Record<string, number>;
  queue: Record<string, number>;
  deadLetters: number;
  awaitingApproval: number;
  /** send_attempts rows per status. */
  sends: Record<string, number>;
  /** Sends that may have been delivered: a person must decide (resend --force or mark-sent). */
  sendsInDoubt: number;
  sendsBounced: number;
}

const SEND_STATUSES = ['pending', 'sending', 'sent', 'failed', 'in_doubt', 'bounced'] as const;

export async function status(config: Config): Promise<StatusReport> {
  const pool = await connectDatabase(config);
  try {
    const emails = await createMariaDbMessageStore(pool).countByStatus();
    const queue = await createMariaDbJobLedger(pool).countByStatus();
    const sends = await createMariaDbSendLedger(pool).countByStatus();
    const fill = (keys: readonly string[], counts: Record<string, number>) => Object.fromEntries(keys.map((k) => [k, counts[k] ?? 0]));
    return {
      emails: fill(EMAIL_STATUSES, emails),
      queue: fill(QUEUE_STATUSES, queue),
      deadLetters: queue.dead ?? 0,
      awaitingApproval: (emails.awaiting_approval ?? 0) + (emails.manual_review ?? 0),
      sends: fill(SEND_STATUSES, sends),
      sendsInDoubt: sends.in_doubt ?? 0,
      sendsBounced: sends.bounced ?? 0,
    };
  } finally {
    await pool.end();
  }
}

export function formatStatus(r: StatusReport): string {
  const line = (counts: Record<string, number>) =>
    Object.entries(counts)
      .map(([k, v]) => `${k}=${v}`)
      .join('  ');
  return [
    `emails: ${line(r.emails)}`,
    `queue:  ${line(r.queue)}`,
    `sends:  ${line(r.sends)}`,
    `dead letters: ${r.deadLetters}   waiting for a person: ${r.awaitingApproval}   sends in doubt: ${r.sendsInDoubt}   bounced: ${r.sendsBounced}`,
    ...(r.sendsInDoubt > 0
      ? [
          'sends in doubt are never retried automatically: check the SMTP log, then `email-rag resend <id> --force --by NAME` or `email-rag mark-sent <id> --by NAME`',
        ]
      : []),
  ].join('\n');
}

export async function drafts(config: Config) {
  const pool = await connectDatabase(config);
  try {
    return await createMariaDbDraftStore(pool).listAwaiting();
  } finally {
    await pool.end();
  }
}
