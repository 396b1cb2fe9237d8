import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CleanupResult } from '../activities/cleanup-activities';
import { PROFILES } from './activity-profiles';

const { resetStuckJobs } = proxyActivities<Activities>(PROFILES.poll.options);

/** Seed 001: rows in `processing` for more than 600 s are reset, reconciled with Temporal. */
export const STUCK_AFTER_SECONDS = 600;

/** Started hourly by the cleanup schedule. */
export async function CleanupWorkflow(input: { olderThanSeconds?: number } = {}): Promise<CleanupResult> {
  return resetStuckJobs({ olderThanSeconds: input.olderThanSeconds ?? STUCK_AFTER_SECONDS });
}
