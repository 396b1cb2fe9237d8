import { WORKFLOW_TYPES } from '../platform/contract';
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleDescription,
} from '@temporalio/client';
import type { Config } from '../platform/config';
import { isDeepStrictEqual } from 'node:util';
import { type MailboxEntry, type TriggeredRun, POLL_SCHEDULE_PREFIX, pollScheduleId } from '../mailboxes';
import { triggerSchedule } from '../mailboxes/index.adapters';
import { CliError } from '../platform/cli-context';
import { INTAKE_PAUSE_NOTE } from './operations.contract';

export { POLL_SCHEDULE_PREFIX, pollScheduleId } from '../mailboxes';
export { triggerSchedule } from '../mailboxes/index.adapters';
export { type TriggeredRun } from '../mailboxes';

/** The id of the poll run the schedule starts (Temporal adds the start time). */
export function pollWorkflowId(mailboxId: string): string {
  return `poll-${mailboxId}`;
}

export const CLEANUP_SCHEDULE_ID = 'cleanup-stuck-jobs';
export const REINDEX_SCHEDULE_ID = 'reindex-sync';
export const RESEND_SCHEDULE_ID = 'resend-approved';
export const RETENTION_SCHEDULE_ID = 'retention-purge';

export type ScheduleAction = 'created' | 'updated' | 'unchanged' | 'removed';

/** What one schedule should look like: an interval, one workflow per run, overlap SKIP. */
export interface WantedSchedule {
  id: string;
  everySeconds: number;
  workflowType: string;
  workflowId: string;
  args: unknown[];
  timeoutMinutes: number;
  note: string;
}

const CATCHUP_WINDOW_MS = 60_000;

function pollSchedule(mailbox: MailboxEntry): WantedSchedule {
  const every = mailbox.imap.pollIntervalSeconds;
  return {
    id: pollScheduleId(mailbox.id),
    everySeconds: every,
    workflowType: WORKFLOW_TYPES.imapPoll,
    workflowId: pollWorkflowId(mailbox.id),
    // Only the id: the worker looks the account up in its registry, no secret enters the history.
    args: [{ mailboxId: mailbox.id }],
    timeoutMinutes: 10,
    note: `Polls mailbox ${mailbox.id} (${mailbox.imap.folders.join(', ')} of ${mailbox.imap.user}) every ${every} s`,
  };
}

/** The schedules this configuration wants: one poll per enabled mailbox plus the housekeeping ones. */
export function wantedSchedules(config: Config): WantedSchedule[] {
  return [
    ...config.mailboxes.filter((m) => m.enabled).map(pollSchedule),
    {
      id: CLEANUP_SCHEDULE_ID,
      everySeconds: 3600,
      workflowType: WORKFLOW_TYPES.cleanup,
      workflowId: CLEANUP_SCHEDULE_ID,
      args: [{}],
      timeoutMinutes: 30,
      note: 'Resets queue rows stuck in processing for more than 600 s, after asking Temporal',
    },
    {
      id: REINDEX_SCHEDULE_ID,
      everySeconds: 900,
      workflowType: WORKFLOW_TYPES.reindexSync,
      workflowId: REINDEX_SCHEDULE_ID,
      args: [{}],
      timeoutMinutes: 60,
      note: 'Completes the index entries of partially indexed emails once the index answers again',
    },
    {
      id: RESEND_SCHEDULE_ID,
      everySeconds: 900,
      workflowType: WORKFLOW_TYPES.resend,
      workflowId: RESEND_SCHEDULE_ID,
      args: [{}],
      timeoutMinutes: 30,
      note: 'Gives approved replies whose SMTP round failed their next round',
    },
    {
      id: RETENTION_SCHEDULE_ID,
      everySeconds: 6 * 3600,
      workflowType: WORKFLOW_TYPES.retentionPurge,
      workflowId: RETENTION_SCHEDULE_ID,
      args: [{}],
      timeoutMinutes: 120,
      note: 'Deletes, in batches, what the RETENTION_* settings no longer keep',
    },
  ];
}

/**
 * Makes the namespace hold exactly the schedules the configuration wants: creates missing ones,
 * updates changed ones, leaves equal ones alone and deletes poll schedules (`imap-poll-…`) of this
 * task queue that no enabled mailbox wants — a removed or disabled entry, or the single-account
 * form `imap-poll-<user>-<folder>`. Poll schedules of other task queues (another installation in
 * the same namespace) are never touched. Safe to run any number of times.
 */
export async function installSchedules(client: Client, config: Config): Promise<Array<{ id: string; action: ScheduleAction }>> {
  const wanted = wantedSchedules(config);
  const results: Array<{ id: string; action: ScheduleAction }> = [];
  for (const s of wanted) results.push({ id: s.id, action: await upsertSchedule(client, config, s) });
  const keep = new Set(wanted.map((s) => s.id));
  for await (const summary of client.schedule.list()) {
    const id = summary.scheduleId;
    if (!id.startsWith(POLL_SCHEDULE_PREFIX) || keep.has(id)) continue;
    const handle = client.schedule.getHandle(id);
    let description: ScheduleDescription;
    try {
      description = await handle.describe();
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) continue; // the list lags behind a delete
      throw err;
    }
    if (description.action.taskQueue !== config.temporal.taskQueue) continue;
    await handle.delete();
    results.push({ id, action: 'removed' });
  }
  return results;
}

/**
 * The enabled mailboxes whose poll schedule an intake pause holds. Their IDLE watchers stay off
 * until `intake resume`: a watcher's wake-up triggers the poll schedule, paused or not.
 */
export async function mailboxesHeldByIntakePause(client: Client, config: Config): Promise<Set<string>> {
  const held = new Set<string>();
  for (const m of config.mailboxes.filter((e) => e.enabled)) {
    try {
      if (heldByIntakePause(await client.schedule.getHandle(pollScheduleId(m.id)).describe())) held.add(m.id);
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    }
  }
  return held;
}

function options(config: Config, s: WantedSchedule) {
  return {
    scheduleId: s.id,
    spec: { intervals: [{ every: s.everySeconds * 1000 }] },
    action: {
      type: 'startWorkflow' as const,
      workflowType: s.workflowType,
      workflowId: s.workflowId,
      taskQueue: config.temporal.taskQueue,
      args: s.args,
      workflowExecutionTimeout: s.timeoutMinutes * 60_000,
    },
    // A slow run is never doubled, and an outage does not replay the runs it missed.
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: CATCHUP_WINDOW_MS, pauseOnFailure: false },
    state: { note: s.note },
  };
}

/**
 * Paused by `email-rag intake pause` (a backup under way, or a restored snapshot taken during one):
 * install keeps that note, without which `intake resume` would take the pause for a person's and
 * leave the intake off.
 */
const heldByIntakePause = (d: ScheduleDescription): boolean => d.state.paused && (d.state.note ?? '').startsWith(INTAKE_PAUSE_NOTE);

/** True when the installed schedule already does what `s` describes (a paused one stays paused). */
export function scheduleMatches(d: ScheduleDescription, config: Config, s: WantedSchedule): boolean {
  const intervals = d.spec.intervals ?? [];
  return (
    intervals.length === 1 &&
    intervals[0]?.every === s.everySeconds * 1000 &&
    (d.spec.calendars ?? []).length === 0 &&
    d.action.workflowType === s.workflowType &&
    d.action.workflowId === s.workflowId &&
    d.action.taskQueue === config.temporal.taskQueue &&
    Number(d.action.workflowExecutionTimeout) === s.timeoutMinutes * 60_000 &&
    isDeepStrictEqual(d.action.args ?? [], s.args) &&
    d.policies.overlap === ScheduleOverlapPolicy.SKIP &&
    d.policies.catchupWindow === CATCHUP_WINDOW_MS &&
    d.policies.pauseOnFailure === false &&
    ((d.state.note ?? '') === s.note || heldByIntakePause(d))
  );
}

async function upsertSchedule(client: Client, config: Config, s: WantedSchedule): Promise<ScheduleAction> {
  const wanted = options(config, s);
  try {
    await client.schedule.create(wanted);
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  const handle = client.schedule.getHandle(s.id);
  if (scheduleMatches(await handle.describe(), config, s)) return 'unchanged';
  await handle.update((prev) => ({
    ...prev,
    spec: wanted.spec,
    action: wanted.action,
    policies: { ...prev.policies, ...wanted.policies },
    state: { ...prev.state, note: heldByIntakePause(prev) ? prev.state.note : s.note },
  }));
  return 'updated';
}

/**
 * Runs the poll schedule of one mailbox, or of every enabled mailbox, once now. An unknown or
 * disabled id is refused (exit 2) rather than silently polling nothing.
 */
export async function triggerPoll(
  client: Client,
  config: Config,
  mailboxId?: string,
): Promise<Array<TriggeredRun & { mailboxId: string }>> {
  let ids: string[];
  if (mailboxId === undefined) ids = config.mailboxes.filter((m) => m.enabled).map((m) => m.id);
  else {
    const entry = config.mailboxes.find((m) => m.id === mailboxId);
    if (!entry) throw new CliError(`no mailbox "${mailboxId}" in the registry (known: ${config.mailboxes.map((m) => m.id).join(', ')})`, 2);
    if (!entry.enabled) throw new CliError(`mailbox "${mailboxId}" is disabled; it has no poll schedule`, 2);
    ids = [mailboxId];
  }
  const runs: Array<TriggeredRun & { mailboxId: string }> = [];
  for (const id of ids) {
    try {
      runs.push({ mailboxId: id, ...(await triggerSchedule(client, pollScheduleId(id))) });
    } catch (err) {
      if (err instanceof ScheduleNotFoundError)
        throw new CliError(`no poll schedule for mailbox "${id}": run email-rag schedules install first`, 2);
      throw err;
    }
  }
  return runs;
}
