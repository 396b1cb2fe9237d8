/**
 * The bench's bare twin: five sequential no-op activities per workflow, on the same task-queue
 * layout as the EmailWorkflow (one queue per cost class), so it shows what the Temporal server,
 * the SDK and the worker settings allow without any of the pipeline's own work.
 */
import { proxyActivities } from '@temporalio/workflow';

export interface TwinActivities {
  noop(step: number): Promise<number>;
}

export async function BenchTwinWorkflow(input: { queues: string[] }): Promise<number> {
  let done = 0;
  for (const [step, taskQueue] of input.queues.entries()) {
    const { noop } = proxyActivities<TwinActivities>({ taskQueue, startToCloseTimeout: '1 minute' });
    done += await noop(step);
  }
  return done;
}
