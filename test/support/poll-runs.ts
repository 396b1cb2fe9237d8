import type { Client } from '@temporalio/client';
import { pollScheduleId, triggerSchedule } from '../../src/operations/schedules';
import { DEFAULT_MAILBOX_ID } from '../../src/mailboxes/mailbox-registry';
import type { PollResult } from '../../src/email/email-activities';
import { waitFor } from './wait';

/**
 * Triggers a mailbox's poll schedule and returns the workflow id of the run it started (found
 * through the schedule itself), without waiting for the run.
 */
export async function triggerPollRun(client: Client, mailboxId = DEFAULT_MAILBOX_ID, timeoutMs = 60_000): Promise<string> {
  const schedule = client.schedule.getHandle(pollScheduleId(mailboxId));
  const known = new Set((await schedule.describe()).info.recentActions.map((a) => a.action.workflow.workflowId));
  await triggerSchedule(client, pollScheduleId(mailboxId));
  return waitFor(
    'the triggered poll',
    async () => (await schedule.describe()).info.recentActions.map((a) => a.action.workflow.workflowId).find((id) => id && !known.has(id)),
    timeoutMs,
    250,
  );
}

/** Triggers a poll run and waits for its result. */
export async function pollOnce(client: Client, mailboxId = DEFAULT_MAILBOX_ID): Promise<PollResult> {
  return client.workflow.getHandle(await triggerPollRun(client, mailboxId)).result() as Promise<PollResult>;
}

/** The business status of an email as operators' SQL sees it. */
export async function emailStatusOf(
  pool: { query(sql: string, params: unknown[]): Promise<unknown> },
  id: string,
): Promise<string | undefined> {
  const rows = (await pool.query('SELECT status FROM emails WHERE id = ?', [id])) as Array<{ status: string }>;
  return rows[0]?.status;
}
