/**
 * Draft and decision: a draft is written (or a person is asked to write one), the run waits for
 * a decision on exactly that draft, and a redraft request or a follow-up in the thread starts
 * the next draft. The decision is recorded in the workflow task that accepted it.
 */
import { log } from '@temporalio/workflow';
import { STATUS, sendIsDone, WAITING_KINDS } from '../email-status';
import { type Decision } from '../email-input';
import { decidedTransition, draftedTransition } from '../status-transitions';
import type { PendingDecision } from '../decisions/decision-queue.workflow';
import { marksSpam } from '../decisions/decision-rules.workflow';
import { type EmailRun, AlreadyHandedOver } from '../email-run.workflow';
import type { EmailWorkflowResult } from '../email-state.workflow';
import { errorClassOf, failureText, failureTypeOf, lostWithWorker } from '../../platform/failures.workflow';
import { LOST_ATTEMPTS_ALLOWED } from '../../platform/activity-profiles.workflow';
import { isLlmFailure } from '../../platform/contract';
import { EMAIL_AUDIT_EVENTS } from '../email.contract';
import { FAILURE_TYPES } from '../../platform/contract';
import { standDown } from '../answered-elsewhere/stand-down.workflow';

/** How long a shadow draft waits for the team's own reply before the run ends without one. */
export const SHADOW_WAIT = '14 days';

/** What a person decided, as recorded: a reply to send, or the end of the run. */
export type Decided = { kind: 'send'; draftId: string } | { kind: 'end'; result: EmailWorkflowResult };

/** Drafts until a person approves or rejects one; each redraft or thread follow-up writes the next version. */
export async function draftUntilDecided(run: EmailRun): Promise<Decided> {
  let version = run.maxDraftVersion();
  let requestedBy: string | null = null;
  for (;;) {
    // A person answered it beside the assistant (during intake, or while its draft waited).
    if (run.decisions.answeredElsewhere) return { kind: 'end', result: await standDown(run) };
    version += 1;
    const result = await writeDraft(run, version, requestedBy);
    if (result) return { kind: 'end', result };
    const decided = await waitForDecision(run, version);
    if (decided.decision) return recordDecision(run, decided.decision, version);
    if (decided.shadowEnded) return { kind: 'end', result: await shadowUnanswered(run) };
    requestedBy = decided.redraftBy;
  }
}

/** One draft version, or `manual_review` when the drafts are used up or the drafter gave up. */
async function writeDraft(run: EmailRun, version: number, requestedBy: string | null): Promise<EmailWorkflowResult | null> {
  const { emailId, state, decisions } = run;
  decisions.decided = null;
  decisions.threadUpdated = false;
  state.waitingFor = null;
  if (state.drafts >= decisions.maxDrafts) {
    state.draft = null;
    await run.record(STATUS.manualReview, `${state.drafts} drafts written, the limit for one email: a person writes the reply`, {
      eventType: EMAIL_AUDIT_EVENTS.draftLimitReached,
      errorClass: 'unclear',
      message: `no further draft after ${state.drafts}; approve with a body or reject`,
    });
    return null;
  }
  try {
    const { recorded, ...view } = await run.act('llm').draftReply({
      emailId,
      version,
      record: run.reserve(),
      ...(requestedBy ? { requestedBy } : {}),
    });
    state.draft = view;
    state.drafts += 1;
    const t = draftedTransition(version, view);
    await run.reached(recorded, t, t.via);
  } catch (err) {
    if (err instanceof AlreadyHandedOver) throw err;
    if (failureTypeOf(err) === FAILURE_TYPES.answeredElsewhere) return standDown(run);
    if (errorClassOf(err) === 'permanent' && !isLlmFailure(failureTypeOf(err)))
      return run.stop(STATUS.failed, EMAIL_AUDIT_EVENTS.draftFailed, err);
    // The LLM gave up after its retry: a person writes the reply (or asks for a redraft). Attempts
    // lost with their worker were run again without counting; only a step whose every attempt
    // was lost so (LOST_ATTEMPTS_ALLOWED) ends here without the model's failure, and says so.
    state.draft = null;
    state.drafts += 1;
    state.lastError = lostWithWorker(err)
      ? `the draft step's attempts kept ending with their workers (${LOST_ATTEMPTS_ALLOWED} lost beyond its own, the last: ${failureText(err)})`
      : failureText(err);
    await run.record(STATUS.manualReview, state.lastError, {
      eventType: EMAIL_AUDIT_EVENTS.draftFailed,
      errorClass: 'unclear',
      message: state.lastError,
    });
  }
  return null;
}

/**
 * Waits for a decision on this version; a redraft request or a follow-up in the thread ends the
 * wait without one. In shadow mode nobody decides: the wait ends with the team's own reply, a
 * follow-up, or after SHADOW_WAIT (`shadowEnded`).
 */
async function waitForDecision(
  run: EmailRun,
  version: number,
): Promise<{ decision?: PendingDecision; redraftBy: string | null; shadowEnded?: true }> {
  const { state, decisions } = run;
  const draftId = state.draft?.draftId ?? `${run.emailId}:draft:${version}`;
  const woken = () => decisions.queue.length > 0 || decisions.threadUpdated || decisions.answeredElsewhere;
  if (state.status === STATUS.shadowed) {
    state.waitingFor = { kind: WAITING_KINDS.shadow, draftId, version };
    const ended = !(await decisions.next(woken, SHADOW_WAIT));
    return ended ? { redraftBy: null, shadowEnded: true } : { redraftBy: null };
  }
  state.waitingFor = { kind: state.status === STATUS.manualReview ? WAITING_KINDS.manualReview : WAITING_KINDS.approval, draftId, version };
  await decisions.next(woken);
  const head = decisions.queue.shift();
  // A follow-up in the thread (the waiting draft is stale), or an answer from outside (the loop stands down).
  if (!head) return { redraftBy: null };
  if (head.name !== 'redraft') return { decision: head, redraftBy: null };
  head.resolve?.({ draftId, status: 'drafting', message: `a new draft (version ${version + 1}) is being written` });
  return { redraftBy: String(head.input.by) };
}

/** Records the decision (and a person's own reply, when they wrote it) and answers the Update. */
async function recordDecision(run: EmailRun, decision: PendingDecision, version: number): Promise<Decided> {
  if (decision.name === 'cover') return answeredByCaseReply(run, decision);
  const { emailId, state } = run;
  run.ready();
  const { input } = decision;
  const by = String(input.by);
  const body = typeof input.body === 'string' ? input.body : undefined;
  let draftId = String(input.draftId);
  state.waitingFor = null;
  if (decision.name === 'approve' && (state.status === STATUS.manualReview || !state.draft)) {
    state.draft = await run.act('bookkeeping').saveHumanDraft({ emailId, version: version + 1, body: body ?? '', by });
    draftId = state.draft.draftId;
  }
  const spam = marksSpam(decision.name, input);
  const decided: Decision =
    decision.name === 'approve'
      ? { kind: 'approve', by, ...(body !== undefined ? { body } : {}) }
      : spam
        ? { kind: 'reject', by, reason: typeof input.reason === 'string' ? input.reason : 'spam', spam: true }
        : { kind: 'reject', by, reason: String(input.reason) };
  // A local activity: the Update is answered, the search attributes move and the send is
  // scheduled in the workflow task that accepted the decision. A try adds no await: the Update's
  // answer and the send's scheduling keep the order the released histories recorded.
  try {
    const booked = await run.book.recordDecision({ emailId, draftId, decision: decided, record: run.reserve() });
    state.decision = { kind: decided.kind, by, draftId, ...(spam ? { spam: true as const } : {}) };
    await run.reached(booked.recorded, decidedTransition(decided));
  } catch (err) {
    answerHandedOver(decision, err);
    throw err;
  }
  if (decided.kind === 'reject') {
    decision.resolve?.({ draftId, status: STATUS.rejected, message: `draft ${draftId} rejected${spam ? ': marked as spam' : ''}` });
    if (spam) await learnMarkedSpam(run, by);
    return { kind: 'end', result: { status: STATUS.rejected } };
  }
  decision.resolve?.({ draftId, status: STATUS.approved, message: `draft ${draftId} approved; it is sent next` });
  return { kind: 'send', draftId };
}

/**
 * After the decision stands (recorded, answered), the spam filter learns the mail as spam. The
 * activity audits what the filter did (spam_learned, or spam_learn_failed after its last attempt);
 * whatever becomes of it, the mail stays rejected.
 */
async function learnMarkedSpam(run: EmailRun, by: string): Promise<void> {
  try {
    await run.spamFilter().learnMarkedSpam({ emailId: run.emailId, by });
  } catch (err) {
    log.warn('the spam filter did not learn a spam mark', { emailId: run.emailId, error: failureText(err) });
  }
}

/** Shadow mode, and the team sent no reply within SHADOW_WAIT: nothing to measure; the run ends. */
async function shadowUnanswered(run: EmailRun): Promise<EmailWorkflowResult> {
  run.state.waitingFor = null;
  await run.record(STATUS.ignored, `shadow mode: the team sent no reply within ${SHADOW_WAIT}`, {
    eventType: EMAIL_AUDIT_EVENTS.shadowUnanswered,
    errorClass: null,
    message: `shadow mode: no reply of the team to this mail was seen within ${SHADOW_WAIT}; its draft was never sent and is not measured`,
  });
  return { status: STATUS.ignored };
}

/**
 * One reply of the case answers this email: the lead email sends it. This email is approved for
 * that reply (no other decision lands on it now) and ends as sent when the lead's reply left.
 */
async function answeredByCaseReply(run: EmailRun, decision: PendingDecision): Promise<Decided> {
  const { state, decisions } = run;
  const lead = String(decision.input.leadEmailId);
  const by = String(decision.input.by);
  const draftId = String(decision.input.draftId);
  state.waitingFor = null;
  state.decision = { kind: 'approve', by, draftId };
  await run.record(STATUS.approved, `answered in one reply with ${lead}`, {
    eventType: EMAIL_AUDIT_EVENTS.caseReplyCovered,
    errorClass: null,
    message: `${by} answered this email in one reply with ${lead}; it is sent by ${lead}`,
  });
  decision.resolve?.({ draftId, status: STATUS.approved, message: `held for the case reply of ${lead}` });
  await decisions.next(() => decisions.caseReply !== null);
  const sent = decisions.caseReply as NonNullable<typeof decisions.caseReply>;
  await run.record(STATUS.sent, `answered by the case reply ${sent.messageId} of ${sent.leadEmailId}`, {
    eventType: EMAIL_AUDIT_EVENTS.answeredInCase,
    errorClass: null,
    message: `the reply ${sent.messageId} sent for ${sent.leadEmailId} (draft ${sent.draftId}) answered this email`,
  });
  return { kind: 'end', result: { status: STATUS.sent, messageId: sent.messageId } };
}

/**
 * The send ledger shows that a reply left (or may have) already — MariaDB restored newer than
 * Temporal's history, or a reset run — and the run ends: the decision taken off the queue is
 * answered first, since an unanswered Update would keep the run open for ever.
 */
function answerHandedOver(decision: PendingDecision, err: unknown): void {
  const send = err instanceof AlreadyHandedOver ? err.record.send : null;
  if (!send) return;
  decision.resolve?.(
    sendIsDone(send.status)
      ? { draftId: send.draftId, status: STATUS.sent, message: `already sent as ${send.messageId}; nothing sent again` }
      : {
          draftId: send.draftId,
          status: STATUS.approved,
          message: `the send of ${send.messageId} may have reached the server; a person decides`,
        },
  );
}
