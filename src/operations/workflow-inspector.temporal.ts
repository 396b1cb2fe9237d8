import { FAILURE_TYPES } from '../platform/contract';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { TransientError } from '../platform/errors';
import type { ActivityLiveness, WorkflowInspector } from './workflow-inspector.port';

const { PendingActivityState } = temporal.api.enums.v1;

function toDate(ts: { seconds?: unknown; nanos?: number | null } | null | undefined): Date | null {
  if (!ts || ts.seconds === undefined || ts.seconds === null) return null;
  return new Date(Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6));
}

export function createTemporalInspector(client: Client): WorkflowInspector {
  return {
    async activity(workflowId: string, activityId: string): Promise<ActivityLiveness> {
      let description;
      try {
        description = await client.workflow.getHandle(workflowId).describe();
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return { kind: 'closed' };
        throw new TransientError(`Temporal cannot describe ${workflowId}: ${(err as Error).message}`, FAILURE_TYPES.temporalUnavailable, {
          cause: err,
        });
      }
      if (description.status.name !== 'RUNNING') return { kind: 'closed' };
      const pending = description.raw.pendingActivities?.find((a) => a.activityId === activityId);
      if (!pending) return { kind: 'not-pending' };
      if (pending.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED) {
        return { kind: 'running', lastHeartbeat: toDate(pending.lastHeartbeatTime) };
      }
      return { kind: 'waiting-to-retry', nextAttemptAt: toDate(pending.scheduledTime) };
    },
  };
}
