import { createMariaDbDraftStore } from '../../adapters/mariadb/draft-store';
import { createMariaDbJobLedger } from '../../adapters/mariadb/job-ledger';
import { createMariaDbMessageStore } from '../../adapters/mariadb/message-store';
import type { Config } from '../../lib/config';
import { EMAIL_STATUSES, QUEUE_STATUSES } from '../../lib/domain';
import { connectDatabase } from '../context';

export interface StatusReport {
  emails: Record<string, number>;
  queue: Record<string, number>;
  deadLetters: number;
  awaitingApproval: number;
}

export async function status(config: Config): Promise<StatusReport> {
  const pool = await connectDatabase(config);
  try {
    const emails = await createMariaDbMessageStore(pool).countByStatus();
    const queue = await createMariaDbJobLedger(pool).countByStatus();
    const fill = (keys: readonly string[], counts: Record<string, number>) => Object.fromEntries(keys.map((k) => [k, counts[k] ?? 0]));
    return {
      emails: fill(EMAIL_STATUSES, emails),
      queue: fill(QUEUE_STATUSES, queue),
      deadLetters: queue.dead ?? 0,
      awaitingApproval: (emails.awaiting_approval ?? 0) + (emails.manual_review ?? 0),
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
    `dead letters: ${r.deadLetters}   waiting for a person: ${r.awaitingApproval}`,
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
