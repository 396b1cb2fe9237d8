import { WORKFLOW_TYPES } from '../lib/contract';
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import type { Config } from '../lib/config';

function safe(s: string): string {
  return s.replace(/[^A-Za-z0-9._@-]+/g, '_');
}

export function pollScheduleId(config: Config): string {
  return `imap-poll-${safe(config.imap.user)}-${safe(config.imap.mailbox)}`;
}

export const CLEANUP_SCHEDULE_ID = 'cleanup-stuck-jobs';
export const REINDEX_SCHEDULE_ID = 'reindex-sync';
export const RESEND_SCHEDULE_ID = 'resend-approved';

/** Every schedule of the product: an interval, one workflow per run, overlap SKIP. */
function intervalSchedule(
  config: Config,
  s: { id: string; every: string; workflowType: string; workflowId: string; args: unknown[]; timeout: string; note: string },
): ScheduleOptions {
  return {
    scheduleId: s.id,
    spec: { intervals: [{ every: s.every }] },
    action: {
      type: 'startWorkflow',
      workflowType: s.workflowType,
      workflowId: s.workflowId,
      taskQueue: config.temporal.taskQueue,
      args: s.args,
      workflowExecutionTimeout: s.timeout,
    },
    // A slow run is never doubled, and an outage does not replay the runs it missed.
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute', pauseOnFailure: false },
    state: { note: s.note },
  };
}

/** Installs (or updates) the poll, cleanup, re-index sync and resend schedules. Idempotent. */
export async function installSchedules(client: Client, config: Config): Promise<Array<{ id: string; action: 'created' | 'updated' }>> {
  const { user, mailbox, pollIntervalSeconds } = config.imap;
  const schedules = [
    intervalSchedule(config, {
      id: pollScheduleId(config),
      every: `${pollIntervalSeconds} seconds`,
      workflowType: WORKFLOW_TYPES.imapPoll,
      workflowId: `poll-${safe(user)}-${safe(mailbox)}`,
      args: [{ mailbox }],
      timeout: '10 minutes',
      note: `Polls ${mailbox} of ${user} every ${pollIntervalSeconds} s`,
    }),
    intervalSchedule(config, {
      id: CLEANUP_SCHEDULE_ID,
      every: '1 hour',
      workflowType: WORKFLOW_TYPES.cleanup,
      workflowId: CLEANUP_SCHEDULE_ID,
      args: [{}],
      timeout: '30 minutes',
      note: 'Resets queue rows stuck in processing for more than 600 s, after asking Temporal',
    }),
    intervalSchedule(config, {
      id: REINDEX_SCHEDULE_ID,
      every: '15 minutes',
      workflowType: WORKFLOW_TYPES.reindexSync,
      workflowId: REINDEX_SCHEDULE_ID,
      args: [{}],
      timeout: '1 hour',
      note: 'Completes the index entries of partially indexed emails once the index answers again',
    }),
    intervalSchedule(config, {
      id: RESEND_SCHEDULE_ID,
      every: '15 minutes',
      workflowType: WORKFLOW_TYPES.resend,
      workflowId: RESEND_SCHEDULE_ID,
      args: [{}],
      timeout: '30 minutes',
      note: 'Gives approved replies whose SMTP round failed their next round',
    }),
  ];
  const results = [];
  for (const s of schedules) results.push(await upsertSchedule(client, s));
  return results;
}

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
