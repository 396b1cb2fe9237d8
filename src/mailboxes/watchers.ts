import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { WORKFLOW_TYPES } from '../platform/contract';
import type { Config } from '../platform/config';
import { watchWorkflowId } from './schedule-ids';

export type WatcherAction = 'started' | 'running' | 'stopped';

/**
 * Makes the namespace run exactly the IDLE watchers the configuration wants: one
 * MailboxWatchWorkflow per enabled mailbox when IMAP_IDLE is on. Started with the USE_EXISTING
 * conflict policy on the mailbox's watcher id, so installs and workers racing each other still
 * leave one; the watcher of a disabled or removed mailbox (or every one, IMAP_IDLE=off) is
 * terminated, its activities notice at their next heartbeat and close their connections. Only
 * watchers of this task queue are touched. Safe to run any number of times.
 */
export async function installWatchers(client: Client, config: Config): Promise<Array<{ id: string; action: WatcherAction }>> {
  const wanted = config.imap.idle ? config.mailboxes.filter((m) => m.enabled).map((m) => m.id) : [];
  const results: Array<{ id: string; action: WatcherAction }> = [];
  for (const mailboxId of wanted) {
    const id = watchWorkflowId(mailboxId);
    if (await running(client, id, config.temporal.taskQueue)) {
      results.push({ id, action: 'running' });
      continue;
    }
    await client.workflow.start(WORKFLOW_TYPES.mailboxWatch, {
      workflowId: id,
      taskQueue: config.temporal.taskQueue,
      args: [{ mailboxId }],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    results.push({ id, action: 'started' });
  }
  const keep = new Set(wanted.map(watchWorkflowId));
  // The registry's other entries by id (no list lag), then anything else still running (removed entries).
  const candidates = new Set(config.mailboxes.map((m) => watchWorkflowId(m.id)));
  const query = `WorkflowType = '${WORKFLOW_TYPES.mailboxWatch}' AND ExecutionStatus = 'Running' AND TaskQueue = '${config.temporal.taskQueue}'`;
  for await (const w of client.workflow.list({ query })) candidates.add(w.workflowId);
  for (const id of candidates) {
    if (keep.has(id) || !(await running(client, id, config.temporal.taskQueue))) continue;
    await client.workflow
      .getHandle(id)
      .terminate('mailbox disabled or removed, or IMAP_IDLE off (email-rag schedules install)')
      .catch((err: unknown) => {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      });
    results.push({ id, action: 'stopped' });
  }
  return results;
}

async function running(client: Client, workflowId: string, taskQueue: string): Promise<boolean> {
  try {
    const d = await client.workflow.getHandle(workflowId).describe();
    return d.status.name === 'RUNNING' && d.taskQueue === taskQueue;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
