/**
 * The job queue's maintenance: the hourly cleanup of stuck queue rows and the resend of approved
 * replies whose send round failed. (The re-index sync is the email's, the retention purge privacy's.)
 */
import { proxyActivities } from '@temporalio/workflow';
import type { CleanupActivities, CleanupResult } from './cleanup.activities';
import { PROFILES } from '../platform/activity-profiles.workflow';

const { resetStuckJobs } = proxyActivities<CleanupActivities>(PROFILES.poll.options);

/** Queue rows in `processing` for more than 600 s are reset into the retry cycle, reconciled with Temporal (docs/queue-model.md). */
export const STUCK_AFTER_SECONDS = 600;

/** Started hourly by the cleanup schedule. */
export async function CleanupWorkflow(input: { olderThanSeconds?: number } = {}): Promise<CleanupResult> {
  return resetStuckJobs({ olderThanSeconds: input.olderThanSeconds ?? STUCK_AFTER_SECONDS });
}

/** Started by the resend schedule: approved replies whose send round failed get their next round now. */
export async function ResendWorkflow(input: { olderThanSeconds?: number } = {}): Promise<{ nudged: number; gone: number }> {
  const { resendApproved } = proxyActivities<CleanupActivities>(PROFILES.poll.options);
  return resendApproved({ olderThanSeconds: input.olderThanSeconds ?? 600 });
}
