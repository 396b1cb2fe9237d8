import { STATUS, type EmailStatus } from '../lib/domain';
import type { ErrorClass } from '../lib/errors';
import type { ActivityDeps } from './deps';
import { correlationId, transition } from './context';

export interface Outcome {
  emailId: string;
  status: EmailStatus;
  eventType: string;
  errorClass?: ErrorClass;
  message: string;
  /** Distinguishes repeated outcomes of one kind (e.g. send rounds) in the audit log. */
  key?: string;
}

/** Records the end (or a side exit) the workflow decided on, with its cause. */
export function createOutcomeActivities(deps: Pick<ActivityDeps, 'messages' | 'audit'>) {
  return {
    async recordOutcome(o: Outcome): Promise<void> {
      const cid = correlationId();
      await deps.audit.record({
        emailId: o.emailId,
        correlationId: cid,
        eventType: o.eventType,
        errorClass: o.errorClass ?? null,
        message: o.message,
        eventKey: `${cid}:${o.eventType}:${o.status}:${o.key ?? ''}`,
      });
      if (o.status === STATUS.partiallyIndexed) await deps.messages.setIndexState(o.emailId, 'partial');
      await transition(deps, o.emailId, o.status, o.message);
    },
  };
}
