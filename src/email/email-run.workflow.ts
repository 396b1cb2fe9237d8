/**
 * What the phases of one email's run share: its state (the `state` query), the decision queue,
 * the activities by profile, and the status recorder. The workflow decides every status: each
 * transition moves the search attributes and the Web UI line, and is recorded in MariaDB
 * (`emails.status` and an `audit_log` row) by a local activity, or by the activity that reached it
 * under a number reserved here. What MariaDB answers tells the run whether a reply for this email
 * was handed over already.
 */
import { proxyActivities, proxyLocalActivities, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import type { EmailActivities } from './email-activities';
import type { RecordedStatus, StatusRecord, StatusToRecord } from './email-activities';
import { DEFAULT_MAX_DRAFTS, EMAIL_AUDIT_EVENTS } from './email.contract';
import { needsPerson, SEND_STATUS, START_STATUS, STATUS, type EmailStatus } from './email-status';
import { priorityKey, type Priority, agedPriorityKey } from '../triage/index.workflow';
import { folderOf, type EmailWorkflowInput } from './email-input';
import type { StatusStep } from './status-transitions';
import { currentDetailsLine } from './email-display';
import {
  AGING_STEP_MS,
  LOCAL_PROFILES,
  PROFILES,
  SPAM_LEARN_OPTIONS,
  llmStepTimeout,
  taskQueueFor,
  type ProfileName,
} from '../platform/activity-profiles.workflow';
import { createDecisionQueue } from './decisions/decision-queue.workflow';
import type { EmailWorkflowResult, EmailWorkflowState } from './email-state.workflow';
import { errorClassOf, failureText, failureTypeOf } from '../platform/failures.workflow';
import { createVisibility } from './visibility.workflow';
import type { AuditEventType } from '../platform/audit-event-types';

type Acts = ReturnType<typeof proxyActivities<EmailActivities>>;

export type EmailRun = ReturnType<typeof createEmailRun>;

export function createEmailRun(input: EmailWorkflowInput) {
  const { emailId } = input;
  const priority: Priority = input.priority ?? 'normal';
  const maxDrafts = input.maxDrafts ?? DEFAULT_MAX_DRAFTS;
  const state: EmailWorkflowState = {
    status: START_STATUS,
    draft: null,
    waitingFor: null,
    decision: null,
    drafts: 0,
    sendRounds: 0,
    lastError: null,
    refusals: [],
  };
  const book = proxyLocalActivities<EmailActivities>(LOCAL_PROFILES.status);
  // Waiting for a person does not age an email; waiting for the pipeline does.
  let readySince = workflowInfo().startTime.getTime();
  let sending = false;
  const decisions = createDecisionQueue({ emailId, state, maxDrafts, book, isSending: () => sending });
  const recorder = createStatusRecorder({ emailId, state, book, isSending: () => sending });
  recorder.visibility.want({
    priority,
    mailbox: input.source.mailboxId ?? (input.source.kind === 'imap' ? folderOf(input.source) : 'file'),
  });

  /** Activities of one profile, on its cost class's queue, the priority raised by the time the email has waited for the pipeline. */
  const act = (profile: ProfileName): Acts =>
    proxyActivities<EmailActivities>({
      ...PROFILES[profile].options,
      ...(profile === 'llm' ? { startToCloseTimeout: llmStepTimeout(input.llmTimeoutMs) } : {}),
      taskQueue: taskQueueFor(workflowInfo().taskQueue, profile),
      priority: { priorityKey: agedPriorityKey(priorityKey(priority), Date.now() - readySince, AGING_STEP_MS) },
    });

  return {
    input,
    emailId,
    priority,
    state,
    decisions,
    act,
    /** The intake runs in this very workflow task, unless a fleet-wide mail-io rate keeps it on that queue. */
    intake: (): Acts => (input.intake === 'queue' ? act('mailIo') : proxyLocalActivities<EmailActivities>(LOCAL_PROFILES.intake)),
    /** Bookkeeping in the workflow task that decided it. */
    book,
    /** The spam filter learns a person's spam mark, on the parse pool, where spamd is asked. */
    spamFilter: (): Acts =>
      proxyActivities<EmailActivities>({ ...SPAM_LEARN_OPTIONS, taskQueue: taskQueueFor(workflowInfo().taskQueue, 'parse') }),
    /** The email waits for the pipeline again (after a person's decision): aging starts anew. */
    ready(): void {
      readySince = Date.now();
    },
    /** From the send phase on, a send found in the ledger is this run's own. */
    startSending(): void {
      sending = true;
    },
    maxDraftVersion: recorder.maxDraftVersion,
    reserve: recorder.reserve,
    record: recorder.record,
    reached: recorder.reached,
    /** Ends the run in a side exit, with the failure's code as the reason and its whole text in the audit row. */
    async stop(status: EmailStatus, eventType: AuditEventType, err: unknown, via?: StatusStep[]): Promise<EmailWorkflowResult> {
      state.lastError = failureText(err);
      state.waitingFor = null;
      const reason = failureTypeOf(err)?.toLowerCase() ?? state.lastError;
      await recorder.record(status, reason, { eventType, errorClass: errorClassOf(err) ?? 'permanent', message: state.lastError }, via);
      return { status };
    },
    /** The triage class, for the TriageClass search attribute. */
    triaged(triageClass: string): void {
      recorder.visibility.want({ triageClass });
    },
    /** Imported history ends after its intake: shown in the status it ends in. */
    endHere(): EmailWorkflowResult {
      const status = state.status as EmailStatus;
      recorder.visibility.flush(status, true);
      return { status };
    },
  };
}

export type AuditEvent = { eventType: AuditEventType; errorClass: string | null; message: string };

/** A reply for this email left already (e.g. after an operator reset the workflow): stop, never draft or send again. */
export class AlreadyHandedOver extends Error {
  constructor(readonly record: StatusRecord) {
    super('a reply for this email was already handed to the SMTP server');
  }
}

/** The email's status as the workflow decides it, recorded in MariaDB. */
function createStatusRecorder(deps: {
  emailId: string;
  state: EmailWorkflowState;
  book: ReturnType<typeof proxyLocalActivities<EmailActivities>>;
  /** From the send phase on, a send found in the ledger is the run's own. */
  isSending(): boolean;
}) {
  const { emailId, state, book } = deps;
  const visibility = createVisibility();
  let seq = 0;
  let lastRecord: StatusRecord | null = null;

  /** Search attributes for a transition: what operators filter on in the Web UI and `temporal workflow list --query`. */
  const show = (status: EmailStatus, event?: { eventType: string }): void => {
    const needsHuman = needsPerson(status) || event?.eventType === EMAIL_AUDIT_EVENTS.sendWaitsForOperator;
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
