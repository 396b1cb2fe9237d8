/**
 * What the phases of one email's run share: its state (the `state` query), the decision inbox,
 * the activities by profile, and the status recorder (status-recorder.ts).
 */
import { proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { DEFAULT_MAX_DRAFTS } from '../lib/contract';
import { priorityKey, type EmailStatus, type EmailWorkflowInput, type Priority, START_STATUS } from '../lib/domain';
import { agedPriorityKey } from '../lib/priority-rules';
import type { StatusStep } from '../lib/status-transitions';
import { AGING_STEP_MS, LOCAL_PROFILES, PROFILES, taskQueueFor, type ProfileName } from './activity-profiles';
import { createDecisionInbox } from './decision-inbox';
import type { EmailWorkflowResult, EmailWorkflowState } from './email-state';
import { errorClassOf, failureText, failureTypeOf } from './failures';
import { createStatusRecorder } from './status-recorder';

type Acts = ReturnType<typeof proxyActivities<Activities>>;

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
  const book = proxyLocalActivities<Activities>(LOCAL_PROFILES.status);
  // Waiting for a person does not age an email; waiting for the pipeline does.
  let readySince = workflowInfo().startTime.getTime();
  let sending = false;
  const inbox = createDecisionInbox({ emailId, state, maxDrafts, book, isSending: () => sending });
  const recorder = createStatusRecorder({ emailId, state, book, isSending: () => sending });
  recorder.visibility.want({ priority, mailbox: input.source.mailboxId ?? (input.source.kind === 'imap' ? input.source.mailbox : 'file') });

  /** Activities of one profile, on its cost class's queue, the priority raised by the time the email has waited for the pipeline. */
  const act = (profile: ProfileName): Acts =>
    proxyActivities<Activities>({
      ...PROFILES[profile].options,
      taskQueue: taskQueueFor(workflowInfo().taskQueue, profile),
      priority: { priorityKey: agedPriorityKey(priorityKey(priority), Date.now() - readySince, AGING_STEP_MS) },
    });

  return {
    input,
    emailId,
    priority,
    state,
    inbox,
    act,
    /** The intake runs in this very workflow task, unless a fleet-wide mail-io rate keeps it on that queue. */
    intake: (): Acts => (input.intake === 'queue' ? act('mailIo') : proxyLocalActivities<Activities>(LOCAL_PROFILES.intake)),
    /** Bookkeeping in the workflow task that decided it. */
    book,
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
    async stop(status: EmailStatus, eventType: string, err: unknown, via?: StatusStep[]): Promise<EmailWorkflowResult> {
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
