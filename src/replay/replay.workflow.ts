/**
 * One replay run (id `replay-<run id>`): drafts every pair of the run in batches, as the product
 * would have on the day of each customer mail, and measures each draft against the reply the team
 * sent. The pairs and results live in MariaDB, so the workflow carries only counts:
 *
 *   pairs without a result → a batch, at most `inFlight` drafts at once → a pause → … →
 *   continue as new every `pairsPerRun` pairs → the run finished
 *
 * Resuming needs nothing of its own: a result is written once per (run, pair), the next batch is
 * read from what has no result yet, and a pair whose result exists is never drafted again.
 */
import { continueAsNew, defineQuery, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import { llmStepTimeout, PROFILES } from '../platform/activity-profiles.workflow';
import type { ReplayActivities } from './replay.activities';
import { REPLAY_PRIORITY_KEY, REPLAY_QUEUE_SUFFIX, REPLAY_WORKFLOW } from './replay.contract';

export interface ReplayWorkflowInput {
  runId: string;
  /** Pairs of the run (for the progress query). */
  total: number;
  /** Pairs read per batch (REPLAY_BATCH_SIZE). */
  batchSize: number;
  /** Drafts in flight at once within a batch (REPLAY_CONCURRENCY). */
  inFlight: number;
  /** The pause between batches (REPLAY_PAUSE_MS). */
  pauseMs: number;
  /** Pairs per workflow run before it continues as new (REPLAY_PAIRS_PER_RUN). */
  pairsPerRun: number;
  /** LLM_TIMEOUT_MS: the draft step's timeout follows it, as the live draft step's does. */
  llmTimeoutMs?: number;
  /** Carried across continue-as-new. */
  done?: number;
  failed?: number;
}

export interface ReplayProgress {
  runId: string;
  total: number;
  done: number;
  failed: number;
  finished: boolean;
}

export const replayProgressQuery = defineQuery<ReplayProgress>(REPLAY_WORKFLOW.progressQuery);

export async function ReplayWorkflow(input: ReplayWorkflowInput): Promise<ReplayProgress> {
  const { drafting, bookkeeping } = replayActivities(input);
  const progress: ReplayProgress = {
    runId: input.runId,
    total: input.total,
    done: input.done ?? 0,
    failed: input.failed ?? 0,
    finished: false,
  };
  setHandler(replayProgressQuery, () => ({ ...progress }));
  let handled = 0;
  for (;;) {
    const { pairIds } = await bookkeeping.replayPending({ runId: input.runId, limit: input.batchSize });
    if (pairIds.length === 0) break;
    await replayBatch({ drafting, bookkeeping }, input, pairIds, progress);
    handled += pairIds.length;
    if (handled >= input.pairsPerRun || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof ReplayWorkflow>({ ...input, done: progress.done, failed: progress.failed });
    }
    // Live mail keeps the model and the embedder between batches.
    if (input.pauseMs > 0) await sleep(input.pauseMs);
  }
  await bookkeeping.finishReplay({ runId: input.runId });
  progress.finished = true;
  return progress;
}

/**
 * Drafting on the replay's own task queue and pool (its slots are the replay's only), at the
 * lowest priority; a few attempts, then the pair is recorded as failed and the run goes on.
 * Bookkeeping on the workflow's queue, retried until the database answers.
 */
function replayActivities(input: ReplayWorkflowInput) {
  const base = workflowInfo().taskQueue;
  const drafting = proxyActivities<ReplayActivities>({
    taskQueue: `${base}${REPLAY_QUEUE_SUFFIX}`,
    startToCloseTimeout: llmStepTimeout(input.llmTimeoutMs),
    heartbeatTimeout: '30 seconds',
    retry: { maximumAttempts: 3, initialInterval: '5 seconds', backoffCoefficient: 4 },
    priority: { priorityKey: REPLAY_PRIORITY_KEY },
  });
  const bookkeeping = proxyActivities<ReplayActivities>({ ...PROFILES.bookkeeping.options, taskQueue: base });
  return { drafting, bookkeeping };
}

type Acts = ReturnType<typeof replayActivities>;

/** One batch, at most `inFlight` pairs at once. */
async function replayBatch(acts: Acts, input: ReplayWorkflowInput, pairIds: string[], progress: ReplayProgress): Promise<void> {
  const queue = [...pairIds];
  const lane = async () => {
    for (let pairId = queue.shift(); pairId !== undefined; pairId = queue.shift()) await replayOne(acts, input.runId, pairId, progress);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(input.inFlight, queue.length)) }, lane));
}

async function replayOne(acts: Acts, runId: string, pairId: string, progress: ReplayProgress): Promise<void> {
  try {
    await acts.drafting.replayPair({ runId, pairId });
  } catch (err) {
    await acts.bookkeeping.replayPairFailed({
      runId,
      pairId,
      error: err instanceof Error ? (err.cause?.toString() ?? err.message) : String(err),
    });
    progress.failed++;
  }
  progress.done++;
}
