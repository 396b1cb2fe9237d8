import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { FAILURE_TYPES } from '../platform/contract';
import { TransientError } from '../platform/errors';
import type { WorkflowEraser, WorkflowErasure } from './workflow-eraser.port';

/** Deletions in flight at once: the dev server has one history shard and one SQLite connection. */
const CONCURRENCY = 8;
/** Runs of one id deleted at most (continue-as-new chains): a guard against a loop, never reached by an email. */
const MAX_RUNS = 50;
const GRPC_NOT_FOUND = 5;

const notFound = (err: unknown) => err instanceof WorkflowNotFoundError || (err as { code?: unknown })?.code === GRPC_NOT_FOUND;

/**
 * Deletes executions through the WorkflowService (`DeleteWorkflowExecution`): the server accepts
 * the request and removes the history and visibility records asynchronously (seconds to a minute
 * on the dev server). A running execution is terminated by the same call. A run still there on
 * the next erasure is deleted again.
 */
export function createTemporalEraser(client: Client): WorkflowEraser {
  const namespace = client.options.namespace;

  /** The run Temporal describes for the id now, or null when there is none. */
  async function latest(workflowId: string): Promise<{ runId: string; running: boolean } | null> {
    try {
      const d = await client.workflow.getHandle(workflowId).describe();
      return { runId: d.runId, running: d.status.name === 'RUNNING' };
    } catch (err) {
      if (notFound(err)) return null;
      throw new TransientError(`Temporal cannot describe ${workflowId}: ${(err as Error).message}`, FAILURE_TYPES.temporalUnavailable, {
        cause: err,
      });
    }
  }

  async function eraseOne(workflowId: string, tally: WorkflowErasure): Promise<void> {
    const requested = new Set<string>();
    for (let run = await latest(workflowId); run && requested.size < MAX_RUNS; run = await latest(workflowId)) {
      // Deletion is asynchronous: a run still described after its delete was accepted is on its way out.
      if (requested.has(run.runId)) return;
      // A running execution is deleted as it is: the server terminates and deletes it in one task.
      // Terminating it first races the close task against the delete task and held deletion back
      // by minutes in our measurement.
      if (run.running) tally.terminated++;
      try {
        await client.workflowService.deleteWorkflowExecution({ namespace, workflowExecution: { workflowId, runId: run.runId } });
      } catch (err) {
        if (!notFound(err)) {
          throw new TransientError(`Temporal did not delete ${workflowId}: ${(err as Error).message}`, FAILURE_TYPES.temporalUnavailable, {
            cause: err,
          });
        }
      }
      requested.add(run.runId);
      tally.deleted++;
    }
    if (requested.size === 0) tally.missing++;
  }

  return {
    async erase(workflowIds) {
      const tally: WorkflowErasure = { deleted: 0, terminated: 0, missing: 0 };
      const queue = [...workflowIds];
      const worker = async () => {
        for (let id = queue.shift(); id !== undefined; id = queue.shift()) await eraseOne(id, tally);
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
      return tally;
    },
  };
}
