/* Frozen: the command sequence of this file must not change. */
import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  defineQuery,
  defineSignal,
  log,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { DraftView } from '../../activities/draft-activities';
import { priorityKey, type Decision, type EmailStatus, type EmailWorkflowInput, type Priority } from '../../lib/domain';
import { agedPriorityKey } from '../../lib/priority-rules';
import { AGING_STEP_MS, PROFILES, taskQueueFor, type ProfileName } from '../activity-profiles';

/** `temporal workflow signal --name approve --input '{"by":"ops","body":"…"}'` */
interface ApproveSignalInput {
  by?: string;
  /** An edited reply body; without it the draft is sent as it is. */
  body?: string;
}
interface RejectSignalInput {
  by?: string;
  reason?: string;
}
interface ResendSignalInput {
  by?: string;
  /** Send even though an earlier attempt was interrupted during the SMTP hand-over (checked by a person). */
  force?: boolean;
}

interface RedraftSignalInput {
  by?: string;
}

const approveSignal = defineSignal<[ApproveSignalInput]>('approve');
/** Asks for a new draft (from manual_review after the LLM recovered, or instead of a weak draft). */
const redraftSignal = defineSignal<[RedraftSignalInput]>('redraft');
const rejectSignal = defineSignal<[RejectSignalInput]>('reject');
/** Retries a send that ran out of attempts (after an SMTP outage), without waiting for the timer. */
const resendSignal = defineSignal<[ResendSignalInput]>('resend');
const draftQuery = defineQuery<DraftView | null>('draft');
const stateQuery = defineQuery<EmailWorkflowState>('state');

interface EmailWorkflowState {
  status: EmailStatus | 'new';
  draft: DraftView | null;
  decision: Decision | null;
  sendRounds: number;
  lastError: string | null;
  ignoredSignals: string[];
}

interface EmailWorkflowResult {
  status: EmailStatus;
  messageId?: string;
}

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

/** How long an approved reply waits after its send attempts ran out before trying again. */
const RESEND_AFTER = '1 hour';
const MAX_SEND_ROUNDS = 24;

function failureText(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause) {
    const type = err.cause instanceof ApplicationFailure && err.cause.type ? `${err.cause.type}: ` : '';
    return `${type}${err.cause.message}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** The error class the queue interceptor attached to an activity's final failure. */
function errorClassOf(err: unknown): string | undefined {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof ApplicationFailure)) return undefined;
  const detail = err.cause.details?.[0] as { errorClass?: string } | undefined;
  return detail?.errorClass;
}

function typeOf(err: unknown): string | undefined {
  return err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? (err.cause.type ?? undefined) : undefined;
}

function clean(value: unknown, max: number): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.slice(0, max) : undefined;
}

/**
 * The EmailWorkflow as it ran before decisions were bound to draft ids (patch
 * `decisions-bound-to-draft-v2`). Runs started before that change replay and finish on this code;
 * it must not change until no such run remains (see the README on changing the workflow). Its
 * activities are called without `statusOwner`, so they still write the email status themselves.
 */
export async function emailWorkflowV1(input: EmailWorkflowInput): Promise<EmailWorkflowResult> {
  const { emailId } = input;
  const priority: Priority = input.priority ?? 'normal';
  // Waiting for a person does not age an email; waiting for the pipeline does.
  let readySince = workflowInfo().startTime.getTime();
  const act = (profile: ProfileName) => activities(profile, priority, readySince);
  const state: EmailWorkflowState = { status: 'new', draft: null, decision: null, sendRounds: 0, lastError: null, ignoredSignals: [] };
  let resendRequested = false;

  setHandler(draftQuery, () => state.draft);
  setHandler(stateQuery, () => state);
  // Decisions are accepted from the moment drafting starts: the draft activity marks the email
  // awaiting_approval in MariaDB before its result reaches this workflow, and an operator who
  // acts on that row must not be ignored. A decision before drafting is a mistake and is dropped.
  let decisionsOpen = false;
  const offer = (decision: Decision): void => {
    const what = `${decision.kind} by ${decision.by}`;
    if (!decisionsOpen) {
      state.ignoredSignals.push(`${what} while ${state.status}: nothing waits for a decision yet`);
      log.warn('decision ignored: nothing waits for approval', { emailId, status: state.status });
    } else if (state.decision) {
      state.ignoredSignals.push(`${what}: ${state.decision.kind} by ${state.decision.by} came first`);
    } else if (decision.kind === 'approve' && state.status === 'manual_review' && decision.body === undefined) {
      state.ignoredSignals.push(`${what} without a body while manual_review: a person must supply the reply`);
    } else {
      state.decision = decision;
    }
  };
  setHandler(approveSignal, (s) => {
    const body = clean(s?.body, 100_000);
    offer({ kind: 'approve', by: clean(s?.by, 191) ?? 'unknown', ...(body !== undefined ? { body } : {}) });
  });
  setHandler(rejectSignal, (s) => {
    offer({ kind: 'reject', by: clean(s?.by, 191) ?? 'unknown', reason: clean(s?.reason, 2000) ?? 'no reason given' });
  });
  let redraftBy: string | null = null;
  setHandler(redraftSignal, (s) => {
    const by = clean(s?.by, 191) ?? 'unknown';
    if (!decisionsOpen || state.decision) state.ignoredSignals.push(`redraft by ${by} while ${state.status}`);
    else redraftBy = by;
  });
  let forceSend = false;
  setHandler(resendSignal, (s) => {
    resendRequested = true;
    if (s?.force === true) forceSend = true;
  });

  const stop = async (status: EmailStatus, eventType: string, err: unknown): Promise<EmailWorkflowResult> => {
    state.lastError = failureText(err);
    await act('bookkeeping').recordOutcome({ emailId, status, eventType, errorClass: 'permanent', message: state.lastError });
    state.status = status;
    return { status };
  };

  try {
    await act('mailIo').fetchEmail(input);
    state.status = 'fetched';
  } catch (err) {
    return stop('failed', 'fetch_failed', err);
  }
  try {
    await act('parse').parseEmail({ emailId, priority });
    state.status = 'parsed';
  } catch (err) {
    return stop('failed', 'parse_failed', err);
  }
  try {
    await act('index').indexEmail({ emailId });
    state.status = 'indexed';
  } catch (err) {
    // Seed 001: the pipeline goes on with less context; the re-index sync completes it later.
    state.lastError = failureText(err);
    await act('bookkeeping').recordOutcome({
      emailId,
      status: 'partially_indexed',
      eventType: 'index_degraded',
      errorClass: 'dependency',
      message: state.lastError,
    });
    state.status = 'partially_indexed';
  }
  if (input.historyOnly) return { status: state.status === 'partially_indexed' ? 'partially_indexed' : 'indexed' };

  decisionsOpen = true;
  let version = 0;
  for (;;) {
    version += 1;
    const requestedBy: string | null = redraftBy;
    redraftBy = null;
    try {
      state.draft = await act('llm').draftReply({ emailId, version, ...(requestedBy ? { requestedBy } : {}) });
      state.status = state.draft.needsHuman ? 'manual_review' : 'awaiting_approval';
    } catch (err) {
      if (errorClassOf(err) === 'permanent' && !/^LLM_/.test(failureText(err))) return stop('failed', 'draft_failed', err);
      // Seed 001: the LLM gave up after its retry; a person writes the reply (or asks for a redraft).
      state.lastError = failureText(err);
      await act('bookkeeping').recordOutcome({
        emailId,
        status: 'manual_review',
        eventType: 'draft_failed',
        errorClass: 'unclear',
        message: state.lastError,
        key: String(version),
      });
      state.status = 'manual_review';
    }
    if (state.status === 'manual_review' && state.decision?.kind === 'approve' && state.decision.body === undefined) {
      // Approved while drafting, but the drafter gave up: there is nothing to send yet.
      state.ignoredSignals.push(`approve by ${state.decision.by} without a body: the draft needs a person`);
      state.decision = null;
    }
    await condition(() => state.decision !== null || redraftBy !== null);
    if (state.decision) break;
  }
  const decision = state.decision as unknown as Decision;
  readySince = Date.now();
  if (!state.draft || (decision.kind === 'approve' && state.status === 'manual_review')) {
    const body = decision.kind === 'approve' ? (decision.body ?? '') : '';
    state.draft = await act('bookkeeping').saveHumanDraft({ emailId, version: version + 1, body, by: decision.by });
  }
  await act('bookkeeping').recordDecision({ emailId, draftId: state.draft.draftId, decision });
  if (decision.kind === 'reject') {
    state.status = 'rejected';
    return { status: 'rejected' };
  }
  state.status = 'approved';

  // SMTP: 3 attempts per round; between rounds the draft stays approved and waits for the timer
  // or a `resend` signal. The send_attempts row keeps every round from sending twice.
  for (;;) {
    state.sendRounds += 1;
    try {
      const sent = await act('send').sendReply({ emailId, draftId: state.draft.draftId, ...(forceSend ? { force: true } : {}) });
      state.status = 'sent';
      return { status: 'sent', messageId: sent.messageId };
    } catch (err) {
      state.lastError = failureText(err);
      if (typeOf(err) === 'SEND_IN_DOUBT') {
        // Only a person can tell whether the interrupted attempt was delivered: wait for them.
        await act('bookkeeping').recordOutcome({
          emailId,
          status: 'approved',
          eventType: 'send_waits_for_operator',
          errorClass: 'unclear',
          message: state.lastError,
          key: String(state.sendRounds),
        });
        resendRequested = false;
        await condition(() => resendRequested && forceSend);
        continue;
      }
      if (errorClassOf(err) === 'permanent') return stop('failed', 'send_failed', err);
      await act('bookkeeping').recordOutcome({
        emailId,
        status: 'approved',
        eventType: 'send_gave_up',
        errorClass: 'transient',
        message: `send round ${state.sendRounds} failed: ${state.lastError}; the approved reply is sent again later`,
        key: String(state.sendRounds),
      });
      if (state.sendRounds >= MAX_SEND_ROUNDS) return stop('failed', 'send_failed', err);
      resendRequested = false;
      await condition(() => resendRequested, RESEND_AFTER);
    }
  }
}
