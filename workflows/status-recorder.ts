/**
 * The email's status as the workflow decides it: each transition moves the search attributes and
 * the Web UI line, and is recorded in MariaDB (`emails.status` and an `audit_log` row) by a local
 * activity, or by the activity that reached it under a number reserved here. What MariaDB answers
 * tells the run whether a reply for this email was handed over already.
 */
import { setCurrentDetails, type proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { RecordedStatus, StatusRecord, StatusToRecord } from '../activities/status-activities';
import { STATUS, SEND_STATUS, needsPerson, type EmailStatus } from '../lib/domain';
import type { StatusStep } from '../lib/status-transitions';
import { currentDetailsLine } from '../lib/workflow-summary';
import type { EmailWorkflowState } from './email-state';
import { createVisibility } from './visibility';

export type AuditEvent = { eventType: string; errorClass: string | null; message: string };

/** A reply for this email left already (e.g. after an operator reset the workflow): stop, never draft or send again. */
export class AlreadyHandedOver extends Error {
  constructor(readonly record: StatusRecord) {
    super('a reply for this email was already handed to the SMTP server');
  }
}

export function createStatusRecorder(deps: {
  emailId: string;
  state: EmailWorkflowState;
  book: ReturnType<typeof proxyLocalActivities<Activities>>;
  /** From the send phase on, a send found in the ledger is the run's own. */
  isSending(): boolean;
}) {
  const { emailId, state, book } = deps;
  const visibility = createVisibility();
  let seq = 0;
  let lastRecord: StatusRecord | null = null;

  /** Search attributes for a transition: what operators filter on in the Web UI and `temporal workflow list --query`. */
  const show = (status: EmailStatus, event?: { eventType: string }): void => {
    const needsHuman = needsPerson(status) || event?.eventType === 'send_waits_for_operator';
    visibility.want({ status, needsHuman, draftVersion: state.draft?.version, category: state.draft?.category || undefined });
    visibility.flush(status);
  };
  /** After a transition was recorded: the run's state, the Web UI line, and a reply found handed over already. */
  const apply = (status: EmailStatus, reason: string, stored: StatusRecord): void => {
    lastRecord = stored;
    state.status = status;
    // Not a command: the Web UI's one line on what the email waits for (and the draft id to decide on).
    setCurrentDetails(currentDetailsLine(status, reason, status === STATUS.awaitingApproval ? state.draft?.draftId : undefined));
    const send = stored.send;
    if (!deps.isSending() && send && send.status !== SEND_STATUS.failed && send.status !== SEND_STATUS.pending)
      throw new AlreadyHandedOver(stored);
  };
  /** Records a transition the workflow decided (a local activity in this workflow task). */
  const record = async (status: EmailStatus, reason: string, event?: AuditEvent, via?: StatusStep | StatusStep[]): Promise<void> => {
    seq += 1;
    show(status, event);
    apply(status, reason, await book.recordStatus({ emailId, status, reason, seq, ...(event ? { event } : {}), ...(via ? { via } : {}) }));
  };

  return {
    visibility,
    record,
    /** The number under which the next activity records the transition it reaches. */
    reserve: (): StatusToRecord => ({ seq: ++seq }),
    /** The transition an activity recorded for the workflow; recorded here when it could not (the send step's status write failed). */
    async reached(done: RecordedStatus | undefined, t: StatusStep, via?: StatusStep | StatusStep[]): Promise<void> {
      if (!done) return record(t.status, t.reason, undefined, via);
      show(done.status);
      apply(done.status, done.reason, done);
    },
    /** Drafts of earlier runs keep their versions: a reset run numbers on from here. */
    maxDraftVersion: (): number => (lastRecord as StatusRecord | null)?.maxDraftVersion ?? 0,
  };
}
