/** The retention purge's workflow, started by its schedule (RETENTION_*). */
import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { RetentionActivities } from './retention.activities';
import { PROFILES, taskQueueFor } from '../platform/activity-profiles.workflow';

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
  const { purgeExpired } = proxyActivities<RetentionActivities>({
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
