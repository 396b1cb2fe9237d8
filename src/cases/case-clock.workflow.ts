/**
 * The case clock: one workflow per installation (id `case-clock`) that keeps every case's
 * response deadline and quiet close on one timer, instead of a workflow with its own timers per
 * case. Each round reads what is due across all cases and acts on it, then sleeps until the
 * earliest time planned:
 *
 *   plan a deadline not planned for its case's current wait → remind → escalate at the breach →
 *   close a case whose customer stayed quiet after our reply → sleep until the next due time
 *
 * A step that plans a case due before the clock's next wake wakes it (signal-with-start, which
 * also starts it where it does not run); the worker wakes it on start. It never sleeps longer than
 * MAX_SLEEP, so a wake that went missing costs minutes, not a deadline. Every act checks the
 * case's row before it writes: a round that runs twice does nothing twice.
 */
import { condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import { PROFILES, taskQueueFor } from '../platform/activity-profiles.workflow';
import { CASE_CLOCK_DUE } from './cases.contract';
import {
  caseClockWakeSignal,
  type CaseClockActivities,
  type CaseClockDueItem,
  type CaseClockInput,
  type EscalationRetry,
} from './case-clock-definitions.workflow';

export * from './case-clock-definitions.workflow';

/** Each kind of due thing taken per round; a larger backlog is taken by the next rounds at once. */
const DUE_PER_ROUND = 50;
/** The longest sleep: a wake lost (Temporal away when a step planned) delays a reminder by this at most. */
const MAX_SLEEP_MS = 30 * 60_000;
/** After a round in which an act failed, the next one waits this long (a database outage is not hammered). */
const AFTER_FAILURE_MS = 60_000;
/** A failed escalation notice is tried again this often until it is delivered. */
const ESCALATION_RETRY_MS = 5 * 60_000;
const EVENTS_PER_RUN = 2_000;

export async function CaseClockWorkflow(input: CaseClockInput = {}): Promise<void> {
  const base = PROFILES.bookkeeping.options;
  // A few quick attempts per act: one case's failing webhook must not hold up every other case's reminder.
  const acts = proxyActivities<CaseClockActivities>({
    ...base,
    retry: { ...base.retry, maximumAttempts: 3 },
    taskQueue: taskQueueFor(workflowInfo().taskQueue, 'bookkeeping'),
  });
  const retries: EscalationRetry[] = [...(input.retries ?? [])];
  let woken = false;
  setHandler(caseClockWakeSignal, () => void (woken = true));

  for (;;) {
    woken = false;
    const { due, nextAt } = await acts.caseClockDue({ limit: DUE_PER_ROUND });
    let failed = false;
    for (const item of due) failed = !(await actOn(acts, item, retries)) || failed;
    failed = !(await retryEscalations(acts, retries)) || failed;
    if (due.length === 0 || failed) {
      const times = [nextAt ? Date.parse(nextAt) : Infinity, ...retries.map((r) => r.atMs)];
      const waitMs = failed ? AFTER_FAILURE_MS : Math.min(MAX_SLEEP_MS, Math.max(1, Math.min(...times) - Date.now()));
      await condition(() => woken, waitMs);
    }
    if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > EVENTS_PER_RUN) {
      await continueAsNew<typeof CaseClockWorkflow>({ retries });
    }
  }
}

/** Acts on one due thing; false when its activity failed (it stays due, or its escalation is retried). */
async function actOn(acts: CaseClockActivities, item: CaseClockDueItem, retries: EscalationRetry[]): Promise<boolean> {
  const { caseId, dueAt } = item;
  try {
    if (item.kind === CASE_CLOCK_DUE.plan) await acts.planCaseDeadline({ caseId });
    else if (item.kind === CASE_CLOCK_DUE.close) await acts.closeQuietCase({ caseId });
    else if (dueAt && item.kind === CASE_CLOCK_DUE.remind) await acts.remindCase({ caseId, dueAt });
    else if (dueAt && item.kind === CASE_CLOCK_DUE.breach) await acts.escalateCase({ caseId, dueAt });
    return true;
  } catch {
    // The breach is recorded before any notice goes out: only the notice is left to retry.
    const again = item.kind === CASE_CLOCK_DUE.breach && dueAt && !retries.some((r) => r.caseId === caseId && r.dueAt === dueAt);
    if (again) retries.push({ caseId, dueAt, atMs: Date.now() + ESCALATION_RETRY_MS });
    return false;
  }
}

/** Escalations whose notice failed, tried again when their time came; false when one failed again. */
async function retryEscalations(acts: CaseClockActivities, retries: EscalationRetry[]): Promise<boolean> {
  let ok = true;
  for (const r of retries.filter((x) => x.atMs <= Date.now())) {
    try {
      await acts.escalateCase({ caseId: r.caseId, dueAt: r.dueAt });
      retries.splice(retries.indexOf(r), 1);
    } catch {
      r.atMs = Date.now() + ESCALATION_RETRY_MS;
      ok = false;
    }
  }
  return ok;
}
