import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { REPLAY_WORKFLOW } from './replay.contract';
import type { ReplayStarter } from './replay-starter.port';
import type { ReplayProgress } from './replay.workflow';

export const replayWorkflowId = (runId: string): string => `${REPLAY_WORKFLOW.idPrefix}${runId}`;

export function createTemporalReplayStarter(client: Client, taskQueue: string): ReplayStarter {
  const handle = (runId: string) => client.workflow.getHandle(replayWorkflowId(runId));
  return {
    async start(input) {
      await client.workflow.start(REPLAY_WORKFLOW.type, { workflowId: replayWorkflowId(input.runId), taskQueue, args: [input] });
    },
    async result(runId) {
      return (await handle(runId).result()) as ReplayProgress;
    },
    async progress(runId) {
      try {
        const h = handle(runId);
        const { status } = await h.describe();
        if (status.name !== 'RUNNING') return null;
        return await h.query<ReplayProgress>(REPLAY_WORKFLOW.progressQuery);
      } catch {
        // Not found, or no worker to answer the query (it times out): the run's rows still say where it stands.
        return null;
      }
    },
    async stop(runId, reason) {
      try {
        const h = handle(runId);
        if ((await h.describe()).status.name === 'RUNNING') await h.terminate(reason);
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
    },
  };
}
