/**
 * Which worker process ran what, read from the Temporal histories after the run: an
 * ActivityTaskStarted event names the identity of the worker that ran the activity (the SDK's
 * default identity is `<pid>@<host>`), a WorkflowTaskStarted event the one that ran the workflow
 * task. Queue rows carry no worker identity; they are matched to their activity by
 * (workflow id, run id, activity id). A history keeps only the last attempt of an activity, so
 * an activity that was retried counts for the worker that ran its last attempt.
 */
import type { Client } from '@temporalio/client';
import type { TestStack } from '../../test/support/stack';
import { inParallel } from './twin';

export interface WorkerShare {
  pid: number;
  /** Activities (last attempt) per queue step, for the activities that have a queue row. */
  activities: Record<string, number>;
  /** Workflow tasks this worker ran (email and poll workflows). */
  workflowTasks: number;
}

export interface WorkerSpread {
  perWorker: WorkerShare[];
  /** Queue rows whose activity was not found in a history, or ran on a process not in `pids`. */
  unattributed: number;
  /** Queue-row key (see rowKey) → the pid of the worker that ran it. */
  rowOwner: Map<string, number>;
}

export const rowKey = (workflowId: string, runId: string, activityId: string) => `${workflowId}/${runId}/${activityId}`;

const pidOf = (identity: string | null | undefined): number => Number(/^(\d+)@/.exec(identity ?? '')?.[1] ?? NaN);

/** Reads the histories of every workflow run that has queue rows; `pids` are the bench's workers. */
export async function workerSpread(stack: TestStack, client: Client, pids: number[]): Promise<WorkerSpread> {
  const rows = (await stack.db.pool.query('SELECT workflow_id, run_id, activity_id, step FROM queue_jobs')) as Array<{
    workflow_id: string;
    run_id: string;
    activity_id: string;
    step: string;
  }>;
  const runs = [...new Map(rows.map((r) => [`${r.workflow_id}/${r.run_id}`, { workflowId: r.workflow_id, runId: r.run_id }])).values()];
  const activityOwner = new Map<string, number>();
  const workflowTasks = new Map<number, number>();
  await inParallel(runs, 8, async ({ workflowId, runId }) => {
    const history = await client.workflow.getHandle(workflowId, runId || undefined).fetchHistory();
    const activityIdByEvent = new Map<string, string>();
    for (const e of history.events ?? []) {
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (scheduled?.activityId) activityIdByEvent.set(String(e.eventId), scheduled.activityId);
      const started = e.activityTaskStartedEventAttributes;
      const activityId = started ? activityIdByEvent.get(String(started.scheduledEventId)) : undefined;
      if (started && activityId) activityOwner.set(rowKey(workflowId, runId, activityId), pidOf(started.identity));
      const wft = e.workflowTaskStartedEventAttributes;
      if (wft) workflowTasks.set(pidOf(wft.identity), (workflowTasks.get(pidOf(wft.identity)) ?? 0) + 1);
    }
  });
  const perWorker: WorkerShare[] = pids.map((pid) => ({ pid, activities: {}, workflowTasks: workflowTasks.get(pid) ?? 0 }));
  const rowOwner = new Map<string, number>();
  let unattributed = 0;
  for (const r of rows) {
    const key = rowKey(r.workflow_id, r.run_id, r.activity_id);
    const pid = activityOwner.get(key);
    const share = perWorker.find((w) => w.pid === pid);
    if (!share || pid === undefined) {
      unattributed += 1;
      continue;
    }
    share.activities[r.step] = (share.activities[r.step] ?? 0) + 1;
    rowOwner.set(key, pid);
  }
  return { perWorker, unattributed, rowOwner };
}
