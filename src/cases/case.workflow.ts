/**
 * One case's work over time (workflow id = the case id). Started by a signal (signal-with-start)
 * when a case needs it; the email's own steps route the case and judge each draft, and the case
 * clock (src/cases/case-clock.workflow.ts) keeps every case's deadline, so since 1.4 a case
 * workflow runs only while its case has:
 *
 *   an automatic send in its grace period (a qualifying draft, sent unless a person stops it or
 *   decides first) → a summary to write for the case's handover → nothing left: it ends
 *
 * The emails keep their own workflows and decisions; the case workflow only reads the case's
 * row and acts through activities (an automatic send is an `approve` Update bound to the draft id,
 * so a person's decision in between always wins). Runs started by 1.3 keep 1.3's way: they also
 * plan, remind, escalate and close (runAsIn13).
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
import { CASE_STATUS } from './case-status';
import { LOCAL_PROFILES, PROFILES, taskQueueFor } from '../platform/activity-profiles.workflow';
import { WORKFLOW_PATCHES } from '../platform/contract';
import {
  caseChangedSignal,
  caseQuery,
  draftReadySignal,
  emailJoinedSignal,
  stopAutoSendSignal,
  type CaseActivities,
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
  // A stop that arrives while a turn judges drafts (its local activity outlived a workflow task)
  // would find nothing pending yet: it is applied again once the turn's verdicts are in.
  const turn = { running: false, stops: [] as StopInput[] };
  // A person stopped it: the draft waits for a decision like any other.
  setHandler(stopAutoSendSignal, (s) => {
    dropStopped(view, s);
    if (turn.running) turn.stops.push(s);
    news = true;
  });
  setHandler(caseQuery, () => view);

  const ctx: CaseRun = { acts, view, ready, shown, news: () => news, seen: () => void (news = false) };
  if (!oneTurn) return runAsIn13(ctx);
  /** The ready drafts taken (routed and judged again: an earlier judgement may have been for an older draft) and the case's state. */
  const takeTurn = async (): Promise<CaseState> => {
    const taken = ready.splice(0);
    turn.running = true;
    const judged = await caseTurn({ caseId, ready: taken }).finally(() => void (turn.running = false));
    taken.forEach((r, i) => applyVerdict(view, r, judged.verdicts[i] ?? null));
    turn.stops.splice(0).forEach((s) => dropStopped(view, s));
    if (judged.summaryDue) await summaryActs(judged.summaryStepMs).summariseCase({ caseId });
    return judged.state;
  };
  for (;;) {
    news = false;
    const state = await takeTurn();
    view.status = state.status;
    showCase(shown, state);
    const next = await sendWhatIsDue(acts, view);
    if (next === 'acted') continue;
    // Nothing to send later and nothing new: the case clock keeps the rest.
    if (next === null && ready.length === 0) return { caseId, status: state.status };
    await condition(() => news || ready.length > 0, next === null ? undefined : Math.max(1, next - Date.now()));
    if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > EVENTS_PER_RUN) {
      // Signals that arrived in this task are handled first: none is carried away unseen.
      if (ready.length > 0) await takeTurn();
      await continueAsNew<typeof CaseWorkflow>({ caseId, carried: { pending: view.pending, acted: view.acted.slice(-50) } });
    }
  }
}

/** What both ways of running a case share: the activities, the case's view and the signals' state. */
interface CaseRun {
  acts: CaseActivities;
  view: CaseView;
  ready: Ready[];
  shown: { key: string };
  /** Whether a signal came since the last `seen`. */
  news(): boolean;
  seen(): void;
}

/** (1.3 runs) Each wake-up step by step, and the case's deadlines and quiet close on its own timers. */
async function runAsIn13(run: CaseRun): Promise<CaseWorkflowResult> {
  const { acts, view, ready, shown } = run;
  const { caseId } = view;
  const takeTurn = async (): Promise<CaseState> => {
    while (ready.length > 0) await takeReadyDraft(acts, view, ready.shift() as Ready);
    return acts.caseState({ caseId });
  };
  for (;;) {
    run.seen();
    const state = await takeTurn();
    view.status = state.status;
    showCase(shown, state);
    if (state.status === CASE_STATUS.closed && view.pending.length === 0) return { caseId, status: state.status };
    const next = await actOnClock(acts, view, state.closeAt);
    if (next === 'acted') continue;
    await condition(() => run.news() || ready.length > 0, next === null ? undefined : Math.max(1, next - Date.now()));
    if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > EVENTS_PER_RUN) {
      if (ready.length > 0) await takeTurn();
      await continueAsNew<typeof CaseWorkflow>({ caseId, carried: { pending: view.pending, acted: view.acted.slice(-50) } });
    }
  }
}

/** An automatic send whose grace period passed: sent ('acted'); else when the next one is due (null: none pending). */
async function sendWhatIsDue(acts: CaseActivities, view: CaseView): Promise<'acted' | number | null> {
  // A second of slack: a time planned "now" by an activity lies a little after this task's clock,
  // and is due, not a timer of a few milliseconds.
  const now = Date.now() + DUE_SLACK_MS;
  const send = view.pending.find((p) => p.sendAtMs <= now);
  if (send) {
    view.pending = view.pending.filter((p) => p !== send);
    await acts.autoSend({ emailId: send.emailId, draftId: send.draftId });
    return 'acted';
  }
  return view.pending.length > 0 ? Math.min(...view.pending.map((p) => p.sendAtMs)) : null;
}

type StopInput = { emailId: string; draftId?: string };

/** A person's stop: the email's automatic send (of that draft, when named) is dropped. */
function dropStopped(view: CaseView, s: StopInput): void {
  view.pending = view.pending.filter((p) => p.emailId !== s.emailId || (s.draftId !== undefined && p.draftId !== s.draftId));
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
  applyVerdict(view, r, r.draftId ? await acts.autonomyVerdict({ emailId: r.emailId, draftId: r.draftId }) : null);
}

/**
 * (1.3 runs) Acts on what is due (an automatic send whose grace passed, a quiet case to close, the reminder,
 * the breach) and returns 'acted', or the time of the next thing due (null: nothing, wait for news).
 */
async function actOnClock(acts: CaseActivities, view: CaseView, closeAt: string | null): Promise<'acted' | number | null> {
  if ((await sendWhatIsDue(acts, view)) === 'acted') return 'acted';
  const now = Date.now() + DUE_SLACK_MS;
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
    const clock = await acts.planCaseDeadline({ caseId: view.caseId });
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
