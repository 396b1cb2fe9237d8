import {
  allHandlersFinished,
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { RecordedStatus, StatusRecord, StatusToRecord } from '../activities/status-activities';
import { DEFAULT_MAX_DRAFTS, PATCHES } from '../lib/contract';
import { priorityKey, type Decision, type EmailStatus, type EmailWorkflowInput, type Priority } from '../lib/domain';
import { agedPriorityKey } from '../lib/priority-rules';
import { decidedTransition, draftedTransition, type StatusStep } from '../lib/status-transitions';
import { currentDetailsLine } from '../lib/workflow-summary';
import { AGING_STEP_MS, LOCAL_PROFILES, PROFILES, taskQueueFor, type ProfileName } from './activity-profiles';
import type { EmailWorkflowResult, EmailWorkflowState } from './email-state';
import { emailWorkflowV1 } from './legacy/email-workflow-v1';
import { CATEGORY, DRAFT_VERSION, EMAIL_PRIORITY, EMAIL_STATUS, MAILBOX, NEEDS_HUMAN, TRIAGE_CLASS } from './search-attributes';
import { createDecisionInbox, type PendingDecision } from './decision-inbox';
import { createVisibility } from './visibility';
import { runIntake } from './intake-phase';
import { runSendPhase, type SendControl } from './send-phase';
import { errorClassOf, failureText, failureTypeOf } from './failures';

export type {
  ApproveInput,
  DecisionInput,
  DecisionResult,
  MarkSentInput,
  RedraftInput,
  RejectInput,
  ResendInput,
  WaitingFor,
} from './decision-rules';
export type { EmailWorkflowResult, EmailWorkflowState, Refusal } from './email-state';

export * from './email-definitions';

/**
 * Activities of one profile, on its cost class's task queue, with the email's priority raised by
 * aging: the longer the email has been ready and waiting, the more urgent its next step.
 */
function activities(profile: ProfileName, basePriority: Priority, readySinceMs: number) {
  return proxyActivities<Activities>({
    ...PROFILES[profile].options,
    taskQueue: taskQueueFor(workflowInfo().taskQueue, profile),
    priority: { priorityKey: agedPriorityKey(priorityKey(basePriority), Date.now() - readySinceMs, AGING_STEP_MS) },
  });
}

/** A reply for this email left already (e.g. after an operator reset the workflow): stop, never draft or send again. */
class AlreadyHandedOver extends Error {
  constructor(readonly record: StatusRecord) {
    super('a reply for this email was already handed to the SMTP server');
  }
}

/**
 * One email from fetch to sent reply. Its id is the email's business identity; large data stays
 * in MariaDB and only ids and the small draft view pass through history.
 */
export async function EmailWorkflow(input: EmailWorkflowInput): Promise<EmailWorkflowResult> {
  // Newest patch first: a run that records it implies the older ones and records no marker (and
  // no TemporalChangeVersion upsert) for them. Runs from before it check the older ones in turn.
  const intakeInTask = patched(PATCHES.intakeInWorkflowTaskV8);
  const decisionInUpdateTask = intakeInTask || patched(PATCHES.decisionInUpdateTaskV7);
  const sendRecordsSent = decisionInUpdateTask || patched(PATCHES.sendRecordsSentV6);
  const statusWithStep = sendRecordsSent || patched(PATCHES.statusWithStepV5);
  const ingestV4 = statusWithStep || patched(PATCHES.ingestV4);
  // Runs started before decisions were bound to draft ids replay and finish on the old code.
  if (!ingestV4 && !patched(PATCHES.decisionsV2)) return emailWorkflowV1(input);
  return emailWorkflowV2(input, { ingestV4, statusWithStep, sendRecordsSent, decisionInUpdateTask, intakeInTask });
}

/** Which patches the run took (newest first: a later one implies the earlier ones). */
interface Generation {
  ingestV4: boolean;
  statusWithStep: boolean;
  sendRecordsSent: boolean;
  decisionInUpdateTask: boolean;
  intakeInTask: boolean;
}

async function emailWorkflowV2(input: EmailWorkflowInput, generation: Generation): Promise<EmailWorkflowResult> {
  const run = startEmailRun(input, generation);
  const result = await run.result;
  // Signals refused while an activity ran are audited before the run ends.
  await run.flushRefusals();
  await condition(allHandlersFinished);
  return result;
}

function startEmailRun(
  input: EmailWorkflowInput,
  { ingestV4, statusWithStep, sendRecordsSent, decisionInUpdateTask, intakeInTask }: Generation,
): { result: Promise<EmailWorkflowResult>; flushRefusals(): Promise<void> } {
  const { emailId } = input;
  const priority: Priority = input.priority ?? 'normal';
  const maxDrafts = input.maxDrafts ?? DEFAULT_MAX_DRAFTS;
  // Waiting for a person does not age an email; waiting for the pipeline does.
  let readySince = workflowInfo().startTime.getTime();
  const act = (profile: ProfileName) => activities(profile, priority, readySince);
  const book = proxyLocalActivities<Activities>(LOCAL_PROFILES.status);
  const state: EmailWorkflowState = {
    status: 'new',
    draft: null,
    waitingFor: null,
    decision: null,
    drafts: 0,
    sendRounds: 0,
    lastError: null,
    refusals: [],
  };
  const statusOwner = 'workflow' as const;
  // The registry id when the run has one; runs from before the registry keep their folder name.
  const mailbox = input.source.mailboxId ?? (input.source.kind === 'imap' ? input.source.mailbox : 'file');
  // Runs started before it upsert every search attribute at every transition.
  const visibility = ingestV4 || patched(PATCHES.leanVisibilityV3) ? createVisibility() : null;
  if (visibility) visibility.want({ priority, mailbox });
  else {
    upsertSearchAttributes([
      { key: EMAIL_PRIORITY, value: priority },
      { key: MAILBOX, value: mailbox },
    ]);
  }
  let seq = 0;
  let lastRecord: StatusRecord | null = null;
  let sending = false;

  /** Search attributes for a transition: what operators filter on in the Web UI and `temporal workflow list --query`. */
  const show = (status: EmailStatus, event?: { eventType: string }): void => {
    const needsHuman = status === 'awaiting_approval' || status === 'manual_review' || event?.eventType === 'send_waits_for_operator';
    if (visibility) {
      visibility.want({ status, needsHuman, draftVersion: state.draft?.version, category: state.draft?.category || undefined });
      visibility.flush(status);
    } else {
      upsertSearchAttributes([
        { key: EMAIL_STATUS, value: status },
        { key: NEEDS_HUMAN, value: needsHuman },
        ...(state.draft ? [{ key: DRAFT_VERSION, value: state.draft.version }] : []),
        ...(state.draft?.category ? [{ key: CATEGORY, value: state.draft.category }] : []),
      ]);
    }
  };
  /** After a transition was recorded: the run's state, the Web UI line, and a reply found handed over already. */
  const apply = (status: EmailStatus, reason: string, stored: StatusRecord): void => {
    lastRecord = stored;
    state.status = status;
    // Not a command: the Web UI's one line on what the email waits for (and the draft id to decide on).
    setCurrentDetails(currentDetailsLine(status, reason, status === 'awaiting_approval' ? state.draft?.draftId : undefined));
    const send = stored.send;
    if (!sending && send && send.status !== 'failed' && send.status !== 'pending') throw new AlreadyHandedOver(stored);
  };
  /** The workflow decides each status; the local activity records it (and tells what MariaDB knows). */
  const record = async (
    status: EmailStatus,
    reason: string,
    event?: { eventType: string; errorClass: string | null; message: string },
    via?: { status: EmailStatus; reason: string } | Array<{ status: EmailStatus; reason: string }>,
  ): Promise<void> => {
    seq += 1;
    show(status, event);
    apply(status, reason, await book.recordStatus({ emailId, status, reason, seq, ...(event ? { event } : {}), ...(via ? { via } : {}) }));
  };
  /**
   * `status-with-step-v5`: the next activity records the transition it reaches when it succeeds;
   * the number is reserved before (a transition recorded otherwise takes the next one).
   */
  const reserve = (): StatusToRecord | undefined => (statusWithStep ? { seq: ++seq } : undefined);
  /** `send-records-sent-v6`: the send activity records `sent` too (runs before record it here). */
  const reserveSent = (): StatusToRecord | undefined => (sendRecordsSent ? { seq: ++seq } : undefined);
  /** The transition an activity reached: recorded by it (v5), or here for runs before. */
  const reached = async (done: RecordedStatus | undefined, t: StatusStep, via?: StatusStep | StatusStep[]): Promise<void> => {
    if (!done) return record(t.status, t.reason, undefined, via);
    show(done.status);
    apply(done.status, done.reason, done);
  };
  const stop = async (
    status: EmailStatus,
    eventType: string,
    err: unknown,
    via?: Array<{ status: EmailStatus; reason: string }>,
  ): Promise<EmailWorkflowResult> => {
    state.lastError = failureText(err);
    state.waitingFor = null;
    // The reason column holds the failure's code (e.g. too_large) for SQL; the audit row has the whole text.
    const reason = failureTypeOf(err)?.toLowerCase() ?? state.lastError;
    await record(status, reason, { eventType, errorClass: errorClassOf(err) ?? 'permanent', message: state.lastError }, via);
    return { status };
  };

  const inbox = createDecisionInbox({ emailId, state, maxDrafts, book, isSending: () => sending });
  const { queue, next, flushRefusals } = inbox;

  const pipeline = async (): Promise<EmailWorkflowResult> => {
    try {
      // --- intake: fetch, parse, index -----------------------------------------------------------
      const ended = await runIntake({
        inOneActivity: ingestV4,
        // `intake-in-workflow-task-v8`: in this very task, unless a fleet-wide mail-io rate keeps it on the queue.
        intake: () => (intakeInTask && input.intake !== 'queue' ? proxyLocalActivities<Activities>(LOCAL_PROFILES.intake) : act('mailIo')),
        reserve,
        reached,
        input,
        priority,
        state,
        act,
        record,
        stop,
        triaged: (triageClass) => {
          if (visibility) visibility.want({ triageClass });
          else upsertSearchAttributes([{ key: TRIAGE_CLASS, value: triageClass }]);
        },
      });
      if (ended) return ended;
      if (input.historyOnly) {
        // History is imported, never answered: the run ends here, and operators see how.
        visibility?.flush(state.status as EmailStatus, true);
        return { status: state.status as EmailStatus };
      }

      // --- drafts and the decision -------------------------------------------------------------
      let version = (lastRecord as StatusRecord | null)?.maxDraftVersion ?? 0;
      let requestedBy: string | null = null;
      let decision: PendingDecision | null = null;
      while (!decision) {
        inbox.decided = null;
        state.waitingFor = null;
        inbox.threadUpdated = false;
        version += 1;
        if (state.drafts >= maxDrafts) {
          state.draft = null;
          await record('manual_review', `${state.drafts} drafts written, the limit for one email: a person writes the reply`, {
            eventType: 'draft_limit_reached',
            errorClass: 'unclear',
            message: `no further draft after ${state.drafts}; approve with a body or reject`,
          });
        } else {
          try {
            const toRecord = reserve();
            const { recorded: done, ...view } = await act('llm').draftReply({
              emailId,
              version,
              statusOwner,
              ...(requestedBy ? { requestedBy } : {}),
              ...(toRecord ? { record: toRecord } : {}),
            });
            state.draft = view;
            state.drafts += 1;
            const t = draftedTransition(version, view);
            await reached(done, t, t.via);
          } catch (err) {
            if (err instanceof AlreadyHandedOver) throw err;
            if (errorClassOf(err) === 'permanent' && !/^LLM_/.test(failureText(err))) return await stop('failed', 'draft_failed', err);
            // Seed 001: the LLM gave up after its retry; a person writes the reply (or asks for a redraft).
            state.draft = null;
            state.drafts += 1;
            state.lastError = failureText(err);
            await record('manual_review', state.lastError, { eventType: 'draft_failed', errorClass: 'unclear', message: state.lastError });
          }
        }
        const draftId = state.draft?.draftId ?? `${emailId}:draft:${version}`;
        state.waitingFor = { kind: state.status === 'manual_review' ? 'manual_review' : 'approval', draftId, version };
        await next(() => queue.length > 0 || inbox.threadUpdated);
        const head = queue.shift();
        if (head?.name === 'redraft') {
          requestedBy = String(head.input.by);
          head.resolve?.({ draftId, status: 'drafting', message: `a new draft (version ${version + 1}) is being written` });
        } else if (head) {
          decision = head;
        } else {
          requestedBy = null; // a follow-up in the thread: the waiting draft is stale
        }
      }

      readySince = Date.now();
      const d = decision.input;
      const by = String(d.by);
      const body = typeof d.body === 'string' ? d.body : undefined;
      let draftId = String(d.draftId);
      state.waitingFor = null;
      if (decision.name === 'approve' && (state.status === 'manual_review' || !state.draft)) {
        state.draft = await act('bookkeeping').saveHumanDraft({ emailId, version: version + 1, body: body ?? '', by });
        draftId = state.draft.draftId;
      }
      const kind = decision.name === 'approve' ? 'approve' : 'reject';
      const decided: Decision =
        kind === 'approve' ? { kind, by, ...(body !== undefined ? { body } : {}) } : { kind, by, reason: String(d.reason) };
      const toRecord = reserve();
      // `decision-in-update-task-v7`: recorded while the workflow task that accepted the decision
      // is still open, so the Update is answered, the search attributes move and the send is
      // scheduled in that one task (no activity task and no second workflow task in between).
      const recorder = decisionInUpdateTask ? book : act('bookkeeping');
      const booked = await recorder.recordDecision({
        emailId,
        draftId,
        statusOwner,
        decision: decided,
        ...(toRecord ? { record: toRecord } : {}),
      });
      state.decision = { kind, by, draftId };
      // Runs before status-with-step-v5 write the transition here (their activity returned nothing).
      await reached(booked?.recorded, decidedTransition(decided));
      if (kind === 'reject') {
        decision.resolve?.({ draftId, status: 'rejected', message: `draft ${draftId} rejected` });
        return { status: 'rejected' };
      }
      decision.resolve?.({ draftId, status: 'approved', message: `draft ${draftId} approved; it is sent next` });
      sending = true;
      const control: SendControl = { emailId, draftId, state, queue, next, record, reserveSent, reached, act, stop, book };
      return await runSendPhase(control);
    } catch (err) {
      if (!(err instanceof AlreadyHandedOver)) throw err;
      // After a reset (or a second run) the ledger knows better than this run's history.
      const send = err.record.send!;
      sending = true;
      state.waitingFor = null;
      if (send.status === 'sent' || send.status === 'bounced') {
        await record('sent', `already sent as ${send.messageId}; nothing sent again`, {
          eventType: 'already_sent',
          errorClass: null,
          message: `draft ${send.draftId} was already sent as ${send.messageId}; this run ends without drafting or sending`,
        });
        for (const p of queue.splice(0)) p.resolve?.({ draftId: send.draftId, status: 'sent', message: 'already sent' });
        return { status: 'sent', messageId: send.messageId };
      }
      // In doubt (or interrupted): only a person may decide; drafting again could send a second reply.
      state.decision = { kind: 'approve', by: 'earlier run', draftId: send.draftId };
      return await runSendPhase({ emailId, draftId: send.draftId, state, queue, next, record, reserveSent, reached, act, stop, book });
    }
  };
  return { result: pipeline(), flushRefusals };
}
