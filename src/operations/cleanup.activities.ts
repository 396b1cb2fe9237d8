import type { AuditLog } from '../platform/store.port';
import type { JobLedger } from '../platform/job-queue';
import type { SendLedger, WorkflowSignals } from '../email';
import type { WorkflowInspector } from './workflow-inspector.port';
import { OPERATIONS_AUDIT_EVENTS } from './operations.contract';

export interface CleanupResult {
  checked: number;
  reset: number;
  stillRunning: number;
}

/**
 * The safety line for lost attempts (docs/queue-model.md): queue rows stuck in `processing` longer than the threshold are reset to
 * `failed` and rejoin the retry cycle, but only after asking Temporal: an attempt that still runs
 * (a long, heartbeating activity) is left alone.
 */
/** What the cleanup needs: the queue rows and sends, Temporal's view of running attempts, the email workflows' signals. */
export interface CleanupDeps {
  jobs: JobLedger;
  inspector: WorkflowInspector;
  audit: AuditLog;
  sends: SendLedger;
  signals: WorkflowSignals;
}

export type CleanupActivities = ReturnType<typeof createCleanupActivities>;

export function createCleanupActivities(deps: CleanupDeps) {
  return {
    /**
     * The resend schedule (design: approved drafts whose send ran out of attempts): nudges each
     * waiting workflow to try its next send round now. The workflow and `send_attempts` decide
     * whether anything is sent, so a nudge can never cause a second copy.
     */
    async resendApproved(input: { olderThanSeconds: number }): Promise<{ nudged: number; gone: number }> {
      const ids = await deps.sends.failedSendsOlderThan(input.olderThanSeconds);
      let nudged = 0;
      for (const id of ids) if (await deps.signals.requestResend(id, 'resend-schedule')) nudged += 1;
      return { nudged, gone: ids.length - nudged };
    },

    async resetStuckJobs(input: { olderThanSeconds: number }): Promise<CleanupResult> {
      const stuck = await deps.jobs.findStuck(input.olderThanSeconds);
      const result: CleanupResult = { checked: stuck.length, reset: 0, stillRunning: 0 };
      for (const row of stuck) {
        const live = await deps.inspector.activity(row.workflowId, row.activityId);
        if (live.kind === 'running') {
          result.stillRunning += 1;
          continue;
        }
        const reason =
          live.kind === 'waiting-to-retry'
            ? `stuck in processing since ${row.startedAt.toISOString()}; Temporal retries it`
            : `stuck in processing since ${row.startedAt.toISOString()}; no attempt is running (${live.kind === 'closed' ? 'workflow closed' : 'worker lost it'})`;
        const nextAttemptAt = live.kind === 'waiting-to-retry' ? live.nextAttemptAt : null;
        if (!(await deps.jobs.resetStuck(row.id, reason, nextAttemptAt))) continue;
        result.reset += 1;
        await deps.audit.record({
          emailId: row.emailId,
          correlationId: row.workflowId,
          eventType: OPERATIONS_AUDIT_EVENTS.stuckReset,
          errorClass: 'unclear',
          message: `${row.step}: ${reason}`,
          details: { step: row.step, queueJobId: row.id },
          eventKey: `stuck:${row.id}:${row.startedAt.getTime()}`,
        });
      }
      return result;
    },
  };
}
