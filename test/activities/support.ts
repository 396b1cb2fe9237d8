import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../activities';
import type { Config } from '../../lib/config';
import { buildDependencies, type Dependencies } from '../../workers/dependencies';

/**
 * The production adapters (real Dovecot, MariaDB, SMTP listener, LLM double over HTTP) wired by
 * the worker's own dependency builder, and a way to run one activity with a Temporal context.
 */
export function activityHarness(config: Config) {
  const connection = Connection.lazy({ address: config.temporal.address });
  const deps: Dependencies = buildDependencies(config, new Client({ connection, namespace: config.temporal.namespace }));
  const activities = createActivities(deps.activities);
  return {
    deps,
    activities,
    /** Runs `fn` as attempt `attempt` of an activity in workflow `workflowId`. */
    run<A extends unknown[], R>(workflowId: string, fn: (...a: A) => Promise<R>, ...args: A): Promise<R> {
      const env = new MockActivityEnvironment({
        workflowExecution: { workflowId, runId: randomUUID() },
        activityId: '1',
        attempt: 1,
      });
      return env.run(fn, ...args);
    },
    async close() {
      await deps.close();
      await connection.close().catch(() => undefined);
    },
  };
}
