import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { EmailActivities } from '../email';
import type { RetentionActivities } from '../privacy';
import type { CleanupActivities, CleanupResult } from './cleanup.activities';

/** What the maintenance workflows run: the cleanup's own, the email's re-index, the retention purge. */
type Activities = CleanupActivities & Pick<EmailActivities, 'reindexPartial'> & RetentionActivities;
import { PROFILES, taskQueueFor } from '../platform/activity-profiles.workflow';

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

/** Rounds of one purge run before it continues as new (each round is one activity of at most 20 s). */
const PURGE_ROUNDS_PER_RUN = 100;

export interface RetentionPurgeInput {
  batchSize?: number;
  dryRun?: boolean;
  /** What earlier runs of this purge (continued as new) deleted, per kind. */
  carried?: Record<string, number>;
}

/**
 * Started by the retention schedule: deletes, in batches, what the RETENTION_* settings no longer
 * keep (docs/data-protection.md). Each round is one activity that stops at its time budget; the
 * run goes on while a round says there is more, and continues as new after many rounds.
 */
export async function RetentionPurgeWorkflow(input: RetentionPurgeInput = {}): Promise<{ purged: Record<string, number>; more: boolean }> {
  const { purgeExpired } = proxyActivities<Activities>({
    ...PROFILES.bookkeeping.options,
    taskQueue: taskQueueFor(workflowInfo().taskQueue, 'bookkeeping'),
  });
  const purged: Record<string, number> = { ...(input.carried ?? {}) };
  for (let round = 0; round < PURGE_ROUNDS_PER_RUN; round++) {
    const r = await purgeExpired({ batchSize: input.batchSize ?? 500, dryRun: input.dryRun ?? false, budgetMs: 20_000 });
    for (const [kind, n] of Object.entries(r.purged)) purged[kind] = (input.dryRun ? 0 : (purged[kind] ?? 0)) + n;
    if (!r.more || input.dryRun) return { purged, more: false };
  }
  return continueAsNew<typeof RetentionPurgeWorkflow>({ ...input, carried: purged });
}
