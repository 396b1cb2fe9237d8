import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { CASE_CLOCK } from './cases.contract';
import { CASE_REPLY } from '../email';
import { FAILURE_TYPES, WORKFLOW_TYPES } from '../platform/contract';
import { TransientError } from '../platform/errors';
import type { CaseSignals } from './case-signals.port';

const unavailable = (what: string, err: unknown) =>
  new TransientError(`Temporal did not take ${what}: ${(err as Error).message}`, FAILURE_TYPES.temporalUnavailable, { cause: err });

/**
 * Case workflows are started by their first signal (signal-with-start): whichever event of a case
 * comes first (a mail joining, a draft ready) starts it, and one that ended (a closed case) starts
 * again. By name: adapters do not import workflow code.
 */
export function createTemporalCaseSignals(client: Client, taskQueue: string): CaseSignals {
  return {
    async notify(caseId, signal, payload) {
      try {
        await client.workflow.signalWithStart(WORKFLOW_TYPES.case, {
          workflowId: caseId,
          taskQueue,
          args: [{ caseId }],
          signal,
          signalArgs: [payload],
        });
      } catch (err) {
        throw unavailable(`the ${signal} signal for ${caseId}`, err);
      }
    },
    async wakeClock() {
      try {
        await client.workflow.signalWithStart(WORKFLOW_TYPES.caseClock, {
          workflowId: CASE_CLOCK.workflowId,
          taskQueue,
          args: [{}],
          signal: CASE_CLOCK.wake,
          signalArgs: [],
        });
      } catch (err) {
        throw unavailable(`the ${CASE_CLOCK.wake} signal`, err);
      }
    },
    async caseReplySent(emailId, payload) {
      try {
        await client.workflow.getHandle(emailId).signal(CASE_REPLY.sent, payload);
        return true;
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return false;
        throw unavailable(`the ${CASE_REPLY.sent} signal for ${emailId}`, err);
      }
    },
  };
}
