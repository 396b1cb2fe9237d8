/**
 * One case: a correspondent's open work (workflow id = the case id). Started by the first signal
 * of its case (signal-with-start from the activities): a mail joined, a draft is ready, the clock
 * moved. It owns what happens over time, with durable timers:
 *
 *   route and summarise each ready draft → send it automatically after a grace period when the
 *   mailbox's policy allows → remind before the response target → escalate at the breach →
 *   close once the customer stayed quiet after our reply
 *
 * The emails keep their own workflows and decisions; the case workflow only reads the case's
 * row and acts through activities (an automatic send is an `approve` Update bound to the draft id,
 * so a person's decision in between always wins).
 */
import {
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { CASE_STATUS } from '../platform/domain';
import { LOCAL_PROFILES, PROFILES, taskQueueFor } from '../platform/activity-profiles.workflow';
import { WORKFLOW_PATCHES } from '../platform/contract';
import {
  caseChangedSignal,
  caseQuery,
  draftReadySignal,
  emailJoinedSignal,
  stopAutoSendSignal,
  type CaseActivities,
  type CaseClock,
  type CaseState,
  type CaseTurnActivities,
  type CaseView,
  type CaseWorkflowInput,
  type ReadyDraft,
} from './case-definitions.workflow';
import { CASE_OWNER, CASE_STATUS_KEY } from '../platform/search-attributes.workflow';

export * from './case-definitions.workflow';

export interface CaseWorkflowResult {
  caseId: string;
  status: string;
}

type Ready = ReadyDraft;

const DUE_SLACK_MS = 1_000;
/** Events in one run before it continues as new: the history of a long case stays short. */
const EVENTS_PER_RUN = 2_000;

export async function CaseWorkflow(input: CaseWorkflowInput): Promise<CaseWorkflowResult> {
  const acts = proxyActivities<CaseActivities>({
    ...PROFILES.bookkeeping.options,
    taskQueue: taskQueueFor(workflowInfo().taskQueue, 'bookkeeping'),
  });
  // 1.4: a wake-up is one local activity (caseTurn) instead of up to five activities. Runs whose
  // history was written by 1.3 go on step by step (docs/changing-workflows.md, way B).
  const oneTurn = patched(WORKFLOW_PATCHES.release14);
  const { caseTurn } = proxyLocalActivities<CaseTurnActivities>(LOCAL_PROFILES.status);
  // A slow local model may take longer than bookkeeping's 30 seconds for a summary.
  const summaryActs = (stepMs: number | undefined): CaseActivities =>
    stepMs
      ? proxyActivities<CaseActivities>({
          ...PROFILES.bookkeeping.options,
          startToCloseTimeout: `${stepMs} ms`,
          taskQueue: taskQueueFor(workflowInfo().taskQueue, 'bookkeeping'),
        })
      : acts;
  const { caseId } = input;
  const view: CaseView = {
    caseId,
    status: CASE_STATUS.open,
    dueAt: null,
    remindAt: null,
    pending: [...(input.carried?.pending ?? [])],
    acted: [...(input.carried?.acted ?? [])],
  };
  const ready: Ready[] = [];
  const shown = { key: '' };
  let news = false;
  setHandler(emailJoinedSignal, () => void (news = true));
  setHandler(caseChangedSignal, () => void (news = true));
  setHandler(draftReadySignal, (r) => {
    ready.push(r);
    news = true;
  });
  // A person stopped it: the draft waits for a decision like any other.
  setHandler(stopAutoSendSignal, (s) => {
    view.pending = view.pending.filter((p) => p.emailId !== s.emailId || (s.draftId !== undefined && p.draftId !== s.draftId));
    news = true;
  });
  setHandler(caseQuery, () => view);

  /** The ready drafts taken, the case's state and (1.4) its clock. */
  const takeTurn = async (): Promise<{ state: CaseState; clock?: CaseClock | null }> => {
    if (!oneTurn) {
      while (ready.length > 0) await takeReadyDraft(acts, view, ready.shift() as Ready);
      return { state: await acts.caseState({ caseId }) };
    }
    const taken = ready.splice(0);
    const turn = await caseTurn({ caseId, ready: taken });
    taken.forEach((r, i) => applyVerdict(view, r, turn.verdicts[i] ?? null));
    if (turn.summaryDue) await summaryActs(turn.summaryStepMs).summariseCase({ caseId });
    return turn;
  };

  for (;;) {
    news = false;
    const { state, clock } = await takeTurn();
    view.status = state.status;
    showCase(shown, state);
    if (state.status === CASE_STATUS.closed && view.pending.length === 0) return { caseId, status: state.status };
    const next = await actOnClock(acts, view, state.closeAt, clock);
    if (next === 'acted') continue;
    await condition(() => news || ready.length > 0, next === null ? undefined : Math.max(1, next - Date.now()));
    if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > EVENTS_PER_RUN) {
      // Signals that arrived in this task are handled first: none is carried away unseen.
      if (ready.length > 0) await takeTurn();
      await continueAsNew<typeof CaseWorkflow>({ caseId, carried: { pending: view.pending, acted: view.acted.slice(-50) } });
    }
  }
}

/** A ready draft's verdict: a newer draft of the same email replaces an automatic send of the older one. */
function applyVerdict(view: CaseView, r: Ready, verdict: { send: boolean; graceMs: number; policy: string | null } | null): void {
  view.pending = view.pending.filter((p) => p.emailId !== r.emailId);
  if (r.draftId && verdict?.send)
    view.pending.push({ emailId: r.emailId, draftId: r.draftId, sendAtMs: Date.now() + verdict.graceMs, policy: verdict.policy });
}

/** (1.3 runs) A mail of the case waits for a person: route the case, summarise it, and see whether it may go out on its own. */
async function takeReadyDraft(acts: CaseActivities, view: CaseView, r: Ready): Promise<void> {
  await acts.routeCase({
    caseId: view.caseId,
    ...(r.category ? { category: r.category } : {}),
    ...(r.language ? { language: r.language } : {}),
  });
  await acts.summariseCase({ caseId: view.caseId });
  // A newer draft of the same email replaces an automatic send of the older one.
  view.pending = view.pending.filter((p) => p.emailId !== r.emailId);
  if (!r.draftId) return;
  const verdict = await acts.autonomyVerdict({ emailId: r.emailId, draftId: r.draftId });
  if (verdict.send)
    view.pending.push({ emailId: r.emailId, draftId: r.draftId, sendAtMs: Date.now() + verdict.graceMs, policy: verdict.policy });
}

/**
 * Acts on what is due (an automatic send whose grace passed, a quiet case to close, the reminder,
 * the breach) and returns 'acted', or the time of the next thing due (null: nothing, wait for news).
 */
async function actOnClock(
  acts: CaseActivities,
  view: CaseView,
  closeAt: string | null,
  /** The clock the turn read (1.4); undefined: read it here (1.3 runs). */
  planned?: CaseClock | null,
): Promise<'acted' | number | null> {
  // A second of slack: a time planned "now" by an activity lies a little after this task's clock,
  // and is due, not a timer of a few milliseconds.
  const now = Date.now() + DUE_SLACK_MS;
  const send = view.pending.find((p) => p.sendAtMs <= now);
  if (send) {
    view.pending = view.pending.filter((p) => p !== send);
    await acts.autoSend({ emailId: send.emailId, draftId: send.draftId });
    return 'acted';
  }
  const times: number[] = view.pending.map((p) => p.sendAtMs);
  if (closeAt) {
    if (Date.parse(closeAt) <= now && !view.acted.includes(`close:${closeAt}`)) {
      view.acted.push(`close:${closeAt}`);
      await acts.closeQuietCase({ caseId: view.caseId });
      return 'acted';
    }
    times.push(Date.parse(closeAt));
  }
  if (view.status === CASE_STATUS.open) {
    const clock = planned ?? (await acts.planCaseDeadline({ caseId: view.caseId }));
    view.dueAt = clock.dueAt;
    view.remindAt = clock.remindAt;
    if (clock.state === 'running') {
      const remind =
        clock.remindAt && !clock.reminded && clock.dueAt ? { at: Date.parse(clock.remindAt), key: `remind:${clock.dueAt}` } : null;
      const breach = clock.dueAt && !clock.breached ? { at: Date.parse(clock.dueAt), key: `escalate:${clock.dueAt}` } : null;
      if (remind && !view.acted.includes(remind.key)) {
        if (remind.at <= now) {
          view.acted.push(remind.key);
          await acts.remindCase({ caseId: view.caseId, dueAt: clock.dueAt as string });
          return 'acted';
        }
        times.push(remind.at);
      }
      if (breach && !view.acted.includes(breach.key)) {
        if (breach.at <= now) {
          view.acted.push(breach.key);
          await acts.escalateCase({ caseId: view.caseId, dueAt: clock.dueAt as string });
          return 'acted';
        }
        times.push(breach.at);
      }
    }
  }
  return times.length > 0 ? Math.min(...times) : null;
}

/** The case's search attributes: `temporal workflow list --query "CaseStatus='open' AND CaseOwner='anna'"`; written when they change. */
function showCase(shown: { key: string }, state: { status: string; owner: string | null; mailbox: string; priority: string }): void {
  const key = `${state.status}|${state.owner ?? ''}|${state.mailbox}|${state.priority}`;
  if (key === shown.key) return;
  shown.key = key;
  upsertSearchAttributes([
    { key: CASE_STATUS_KEY, value: state.status },
    { key: CASE_OWNER, value: state.owner },
  ]);
}
