import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import type { Config } from '../lib/config';

function safe(s: string): string {
  return s.replace(/[^A-Za-z0-9._@-]+/g, '_');
}

export function pollScheduleId(config: Config): string {
  return `imap-poll-${safe(config.imap.user)}-${safe(config.imap.mailbox)}`;
}

/**
 * Installs (or updates) the IMAP poll schedule. Idempotent; overlap SKIP so a slow poll is
 * never doubled, and a short catch-up window so a server outage does not replay missed runs.
 */
export async function installSchedules(client: Client, config: Config): Promise<Array<{ id: string; action: 'created' | 'updated' }>> {
  const id = pollScheduleId(config);
  const options: ScheduleOptions = {
    scheduleId: id,
    spec: { intervals: [{ every: `${config.imap.pollIntervalSeconds} seconds` }] },
    action: {
      type: 'startWorkflow',
      workflowType: 'ImapPollWorkflow',
      workflowId: `poll-${safe(config.imap.user)}-${safe(config.imap.mailbox)}`,
      taskQueue: config.temporal.taskQueue,
      args: [{ mailbox: config.imap.mailbox }],
      workflowExecutionTimeout: '10 minutes',
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute', pauseOnFailure: false },
    state: { note: `Polls ${config.imap.mailbox} of ${config.imap.user} every ${config.imap.pollIntervalSeconds} s` },
  };
  const cleanup: ScheduleOptions = {
    scheduleId: CLEANUP_SCHEDULE_ID,
    spec: { intervals: [{ every: '1 hour' }] },
    action: {
      type: 'startWorkflow',
      workflowType: 'CleanupWorkflow',
      workflowId: 'cleanup-stuck-jobs',
      taskQueue: config.temporal.taskQueue,
      args: [{}],
      workflowExecutionTimeout: '30 minutes',
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute', pauseOnFailure: false },
    state: { note: 'Resets queue rows stuck in processing for more than 600 s, after asking Temporal' },
  };
  const reindex: ScheduleOptions = {
    scheduleId: REINDEX_SCHEDULE_ID,
    spec: { intervals: [{ every: '15 minutes' }] },
    action: {
      type: 'startWorkflow',
      workflowType: 'ReindexSyncWorkflow',
      workflowId: 'reindex-sync',
      taskQueue: config.temporal.taskQueue,
      args: [{}],
      workflowExecutionTimeout: '1 hour',
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute', pauseOnFailure: false },
    state: { note: 'Completes the index entries of partially indexed emails once the index answers again' },
  };
  const resend: ScheduleOptions = {
    scheduleId: RESEND_SCHEDULE_ID,
    spec: { intervals: [{ every: '15 minutes' }] },
    action: {
      type: 'startWorkflow',
      workflowType: 'ResendWorkflow',
      workflowId: 'resend-approved',
      taskQueue: config.temporal.taskQueue,
      args: [{}],
      workflowExecutionTimeout: '30 minutes',
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute', pauseOnFailure: false },
    state: { note: 'Gives approved replies whose SMTP round failed their next round' },
  };
  const results = [];
  for (const s of [options, cleanup, reindex, resend]) results.push(await upsertSchedule(client, s));
  return results;
}

export const CLEANUP_SCHEDULE_ID = 'cleanup-stuck-jobs';
export const REINDEX_SCHEDULE_ID = 'reindex-sync';
export const RESEND_SCHEDULE_ID = 'resend-approved';

async function upsertSchedule(client: Client, options: ScheduleOptions): Promise<{ id: string; action: 'created' | 'updated' }> {
  const id = options.scheduleId;
  try {
    await client.schedule.create(options);
    return { id, action: 'created' };
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(id).update((prev) => ({
      ...prev,
      spec: options.spec,
      action: options.action,
      policies: { ...prev.policies, overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: 60_000, pauseOnFailure: false },
      state: { ...prev.state, note: options.state?.note },
    }));
    return { id, action: 'updated' };
  }
}

/**
 * Runs a schedule once now (ALLOW_ALL: an explicit request is not skipped). A schedule names its
 * runs by the second they start, so a second run within the same second would be dropped as a
 * duplicate id: wait for the next second first.
 */
export async function triggerSchedule(client: Client, scheduleId: string): Promise<void> {
  const handle = client.schedule.getHandle(scheduleId);
  const last = (await handle.describe()).info.recentActions.at(-1)?.takenAt.getTime() ?? 0;
  const nextSecond = Math.floor(Math.max(last, Date.now()) / 1000) * 1000 + 1000;
  if (Math.floor(last / 1000) === Math.floor(Date.now() / 1000)) await new Promise((r) => setTimeout(r, nextSecond - Date.now() + 20));
  await handle.trigger(ScheduleOverlapPolicy.ALLOW_ALL);
}

export function triggerPoll(client: Client, config: Config): Promise<void> {
  return triggerSchedule(client, pollScheduleId(config));
}
