import { ScheduleNotFoundError, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { FAILURE_TYPES } from '../platform/contract';
import { PermanentError } from '../platform/errors';
import { pollScheduleId } from './schedule-ids';
import type { PollTrigger } from './poll-trigger.port';

/** A requested run: `after` names the run in progress it follows (null: it starts now). */
export interface TriggeredRun {
  scheduleId: string;
  after: string | null;
}

/**
 * Runs a schedule once now, or right after its run in progress (BUFFER_ONE): an explicit request
 * is never dropped, and two runs of one schedule never race (two poll runs of one mailbox would
 * each take the backlog's room and overshoot BACKLOG_LIMIT). A run that ALLOW_ALL started was
 * not even listed among the schedule's running actions. A schedule names its runs by the second
 * they start, so a second run within the same second would be dropped as a duplicate id: wait
 * for the next second first.
 */
export async function triggerSchedule(client: Client, scheduleId: string): Promise<TriggeredRun> {
  const handle = client.schedule.getHandle(scheduleId);
  const { info } = await handle.describe();
  const last = info.recentActions.at(-1)?.takenAt.getTime() ?? 0;
  const nextSecond = Math.floor(Math.max(last, Date.now()) / 1000) * 1000 + 1000;
  if (Math.floor(last / 1000) === Math.floor(Date.now() / 1000)) await new Promise((r) => setTimeout(r, nextSecond - Date.now() + 20));
  await handle.trigger(ScheduleOverlapPolicy.BUFFER_ONE);
  return { scheduleId, after: info.runningActions[0]?.workflow.workflowId ?? null };
}

/**
 * The watcher's wake-up: the mailbox's own poll schedule, triggered like `email-rag poll` does.
 * A notice during a run queues one more run after it (BUFFER_ONE keeps one), so a burst of
 * notices costs at most two runs and no notice is lost.
 */
export function createTemporalPollTrigger(client: Client): PollTrigger {
  return {
    async wake(mailboxId: string) {
      try {
        const run = await triggerSchedule(client, pollScheduleId(mailboxId));
        return run.after === null ? 'started' : 'queued';
      } catch (err) {
        if (err instanceof ScheduleNotFoundError) {
          throw new PermanentError(
            `mailbox "${mailboxId}" has no poll schedule to wake (run email-rag schedules install)`,
            FAILURE_TYPES.pollScheduleMissing,
            { cause: err },
          );
        }
        throw err;
      }
    },
  };
}
