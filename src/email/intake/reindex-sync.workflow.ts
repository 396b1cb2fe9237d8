/**
 * The re-index sync: emails indexed without one of the indexes (a vector store or graph that was
 * down) are completed once the index is back, and changed knowledge files are indexed again.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { EmailActivities } from '../email-activities';
import { PROFILES, taskQueueFor } from '../../platform/activity-profiles.workflow';

/** Started by the re-index sync schedule: completes degraded index entries once the index is back. */
export async function ReindexSyncWorkflow(input: { limit?: number } = {}): Promise<{ checked: number; completed: number; failed: number }> {
  const { reindexPartial } = proxyActivities<Pick<EmailActivities, 'reindexPartial'>>({
    ...PROFILES.index.options,
    taskQueue: taskQueueFor(workflowInfo().taskQueue, 'index'),
  });
  return reindexPartial({ limit: input.limit ?? 500 });
}
