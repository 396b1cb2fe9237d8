/** Temporal's part of readiness: the namespace is described, and (for a mailbox) whether its poll schedule is paused. */
import { ScheduleNotFoundError, type Client, type ConnectionLike } from '@temporalio/client';
import { pollScheduleId } from '../mailboxes';
import { HEALTH_DEPENDENCIES } from './operations.contract';
import type { ReadinessProbe } from './readiness';

/** What the probe needs of a connection: a Client's (`Connection`) or the worker's (`NativeConnection`). */
export type NamespaceConnection = Pick<ConnectionLike, 'workflowService' | 'withDeadline'>;

/** Ready when DescribeNamespace answers within the timeout (the server is up, the namespace exists, the credentials hold). */
export function temporalNamespaceProbe(connection: NamespaceConnection, where: { address: string; namespace: string }): ReadinessProbe {
  return {
    dependency: HEALTH_DEPENDENCIES.temporal,
    where: `namespace "${where.namespace}" at ${where.address}`,
    async run(timeoutMs) {
      await connection.withDeadline(Date.now() + timeoutMs, () =>
        connection.workflowService.describeNamespace({ namespace: where.namespace }),
      );
    },
  };
}

/** Whether a mailbox's poll schedule is paused (with its note), or `missing` when no schedule exists. */
export type PollScheduleState = { paused: false } | { paused: true; note: string } | 'missing';

/** Asks Temporal about a mailbox's poll schedule, within `timeoutMs`. */
export function temporalPollSchedules(client: Client): (mailboxId: string, timeoutMs: number) => Promise<PollScheduleState> {
  return async (mailboxId, timeoutMs) => {
    try {
      const d = await client.withDeadline(Date.now() + timeoutMs, () => client.schedule.getHandle(pollScheduleId(mailboxId)).describe());
      return d.state.paused ? { paused: true, note: d.state.note ?? '' } : { paused: false };
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) return 'missing';
      throw err;
    }
  };
}
