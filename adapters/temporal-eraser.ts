import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { FAILURE_TYPES } from '../lib/contract';
import { TransientError } from '../lib/errors';
import type { WorkflowEraser, WorkflowErasure } from '../ports/workflow-eraser';

/** Deletions in flight at once: the dev server has one history shard and one SQLite connection. */
const CONCURRENCY = 8;
/** Runs of one id deleted at most (continue-as-new chains): a guard against a loop, never reached by an email. */
const MAX_RUNS = 50;
const GRPC_NOT_FOUND = 5;

const notFound = (err: unknown) => err instanceof WorkflowNotFoundError || (err as { code?: unknown })?.code === GRPC_NOT_FOUND;

/**
 * Deletes executions through the WorkflowService (`DeleteWorkflowExecution`): the server removes
 * the history and visibility records asynchronously, within seconds. A running execution is
 * terminated first (the delete call would do it too, but then without a reason in its history).
 */
export function createTemporalEraser(client: Client): WorkflowEraser {
  const namespace = client.options.namespace;

  async function eraseOne(workflowId: string, reason: string, tally: WorkflowErasure): Promise<void> {
    let runs = 0;
    for (; runs < MAX_RUNS; runs++) {
      let description;
      try {
        description = await client.workflow.getHandle(workflowId).describe();
      } catch (err) {
        if (notFound(err)) break;
        throw new TransientError(`Temporal cannot describe ${workflowId}: ${(err as Error).message}`, FAILURE_TYPES.temporalUnavailable, {
          cause: err,
        });
      }
      const runId = description.runId;
      if (description.status.name === 'RUNNING') {
        await client.workflow
          .getHandle(workflowId, runId)
          .terminate(reason)
          .catch((err: unknown) => {
            if (!notFound(err)) throw err;
          });
        tally.terminated++;
      }
      try {
        await client.workflowService.deleteWorkflowExecution({ namespace, workflowExecution: { workflowId, runId } });
      } catch (err) {
        if (!notFound(err)) {
          throw new TransientError(`Temporal did not delete ${workflowId}: ${(err as Error).message}`, FAILURE_TYPES.temporalUnavailable, {
            cause: err,
          });
        }
      }
      tally.deleted++;
      // Deletion is asynchronous: wait until this run is gone before looking for an older one.
      await waitGone(workflowId, runId);
    }
    if (runs === 0) tally.missing++;
  }

  async function waitGone(workflowId: string, runId: string): Promise<void> {
    for (let i = 0; i < 100; i++) {
      try {
        await client.workflow.getHandle(workflowId, runId).describe();
      } catch (err) {
        if (notFound(err)) return;
        throw err;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new TransientError(
      `Temporal still lists ${workflowId} after deleting it; run the erasure again`,
      FAILURE_TYPES.temporalUnavailable,
    );
  }

  return {
    async erase(workflowIds, reason) {
      const tally: WorkflowErasure = { deleted: 0, terminated: 0, missing: 0 };
      const queue = [...workflowIds];
      const worker = async () => {
        for (let id = queue.shift(); id !== undefined; id = queue.shift()) await eraseOne(id, reason, tally);
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
      return tally;
    },
  };
}
