import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CleanupResult } from '../activities/cleanup-activities';
import { PROFILES, taskQueueFor } from './activity-profiles';

const { resetStuckJobs } = proxyActivities<Activities>(PROFILES.poll.options);

/** Queue rows in `processing` for more than 600 s are reset into the retry cycle, reconciled with Temporal (docs/queue-model.md). */
export const STUCK_AFTER_SECONDS = 600;

/** Started hourly by the cleanup schedule. */
export async function CleanupWorkflow(input: { olderThanSeconds?: number } = {}): Promise<CleanupResult> {
  return resetStuckJobs({ olderThanSeconds: input.olderThanSeconds ?? STUCK_AFTER_SECONDS });
}

/** Started by the re-index sync schedule: completes degraded index entries once the index is back. */
export async function ReindexSyncWorkflow(input: { limit?: number } = {}): Promise<{ checked: number; completed: number; failed: number }> {
  const { reindexPartial } = proxyActivities<Activities>({
    ...PROFILES.index.options,
    taskQueue: taskQueueFor(workflowInfo().taskQueue, 'index'),
  });
  return reindexPartial({ limit: input.limit ?? 500 });
}

/** Started by the resend schedule: approved replies whose send round failed get their next round now. */
export async function ResendWorkflow(input: { olderThanSeconds?: number } = {}): Promise<{ nudged: number; gone: number }> {
  const { resendApproved } = proxyActivities<Activities>(PROFILES.poll.options);
  return resendApproved({ olderThanSeconds: input.olderThanSeconds ?? 600 });
}
