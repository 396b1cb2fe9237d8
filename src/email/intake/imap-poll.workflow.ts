import { continueAsNew, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { EmailActivities } from '../email-activities';
import type { PollInput, PollResult } from '../email-activities';
import { PROFILES, taskQueueFor } from '../../platform/activity-profiles.workflow';
import { priorityKey } from '../../triage/index.workflow';

/**
 * Passes one run may take, over all folders of its mailbox: with the default batch of 100 that is
 * 5,000 messages, and the run's history stays small (a few events a pass). A run that reaches it
 * while mail still waits for the backlog continues as a new run (same workflow id, fresh history).
 */
export const MAX_POLL_PASSES = 50;

/** The first wait for room in the backlog; each pass that took nothing doubles it, up to the longest. */
export const BACKLOG_WAIT_FIRST_MS = 2_000;
export const BACKLOG_WAIT_LONGEST_MS = 15_000;
/** Left before the run's timeout (the schedule's) for a last pass after a wait. */
const DEADLINE_MARGIN_MS = 60_000;

/** What one run did: the first folder's figures, with the started and existing of every folder. */
export interface PollRunResult extends PollResult {
  /** One line per folder polled after the first (multi-folder mailboxes only). */
  otherFolders?: Array<{ mailbox: string; uidValidity: number; watermark: number; started: number; more?: boolean }>;
}

/** A poll run's input; `waited` is carried over by a run that continued as new. */
export interface PollRunInput {
  mailboxId?: string;
  mailbox?: string;
  /** Milliseconds already waited for the backlog without taking anything (continued runs). */
  waited?: number;
}

/**
 * Started by a mailbox's poll schedule: passes over new UIDs above each folder's watermark. A pass
 * that took a full batch while the backlog had room is followed by the next one at once, so mail
 * that arrived during an outage does not wait one schedule interval per batch. A pass cut by
 * BACKLOG_LIMIT waits (2 s, doubling up to 15 s while nothing leaves the backlog) and passes
 * again, so a large arrival drains continuously at the pace the pipeline finishes emails; the
 * run ends when the folders are drained, after about one poll interval of waiting without
 * taking anything, or before its timeout (the schedule's SKIP overlap starts no second run
 * meanwhile; the next scheduled run takes over). `{ mailboxId }` polls every folder of that
 * registry entry; `{ mailbox }` alone (schedules and runs from before the registry) is that folder
 * of the default mailbox.
 */
export async function ImapPollWorkflow(input: PollRunInput = {}): Promise<PollRunResult> {
  const { pollMailbox } = proxyActivities<EmailActivities>({
    ...PROFILES.poll.options,
    taskQueue: taskQueueFor(workflowInfo().taskQueue, 'poll'),
    // Ahead of every email step on the mail I/O queue: new mail is never listed after a batch of
    // approved replies waiting for SMTP (each mail then takes its own priority).
    priority: { priorityKey: priorityKey('critical') },
  });
  const { waited: carried, ...target } = input;
  let passes = 0;
  /** Waited for the backlog since the last pass that took something. */
  let waited = carried ?? 0;
  let nextWaitMs = BACKLOG_WAIT_FIRST_MS;
  /**
   * Waits before the next pass of a folder whose last pass was cut by the backlog; false when
   * the run should end instead (waited one poll interval, or its timeout is near).
   */
  const waitForRoom = async (last: PollResult): Promise<boolean> => {
    if (!last.cutByBacklog) return false;
    const budget = (last.pollIntervalSeconds ?? 60) * 1000;
    if (waited + nextWaitMs > budget || Date.now() + nextWaitMs + DEADLINE_MARGIN_MS > deadline()) return false;
    await sleep(nextWaitMs);
    waited += nextWaitMs;
    nextWaitMs = Math.min(nextWaitMs * 2, BACKLOG_WAIT_LONGEST_MS);
    return true;
  };
  const tookSome = (r: PollResult): void => {
    if (r.started.length + r.existing.length === 0) return;
    waited = 0;
    nextWaitMs = BACKLOG_WAIT_FIRST_MS;
  };
  /** Drains one folder; `folder` undefined: the first folder, as the activity picks it. */
  const drain = async (folder?: string): Promise<PollResult> => {
    const base: PollInput = folder === undefined ? target : { ...target, folder };
    const first = await pollMailbox(base);
    passes += 1;
    tookSome(first);
    const total: PollResult = { ...first, started: [...first.started], existing: [...first.existing] };
    let last = first;
    while (passes < MAX_POLL_PASSES && (last.more || (await waitForRoom(last)))) {
      last = await pollMailbox({
        ...base,
        run: { uidValidity: first.uidValidity, sinceUid: first.from ?? 0, started: total.started.length },
      });
      passes += 1;
      if (last.uidValidity !== first.uidValidity) break;
      tookSome(last);
      total.started.push(...last.started);
      total.existing.push(...last.existing);
      total.backlog = last.backlog;
      total.watermark = last.watermark;
      total.more = last.more;
      total.cutByBacklog = last.cutByBacklog;
    }
    return total;
  };
  /** At MAX_POLL_PASSES with mail still waiting: a fresh run goes on. */
  const continueIfWaiting = async (r: PollResult): Promise<void> => {
    if (passes < MAX_POLL_PASSES || !(r.more || r.cutByBacklog)) return;
    if (Date.now() + DEADLINE_MARGIN_MS > deadline()) return;
    await continueAsNew<typeof ImapPollWorkflow>({ ...target, waited });
  };
  const total: PollRunResult = await drain();
  await continueIfWaiting(total);
  // Results of runs from before the registry carry no folder list: one folder, as then.
  const others = (total.folders ?? []).filter((f) => f !== total.mailbox);
  for (const folder of others) {
    if (passes >= MAX_POLL_PASSES) break;
    const r = await drain(folder);
    await continueIfWaiting(r);
    total.started.push(...r.started);
    total.existing.push(...r.existing);
    total.backlog = r.backlog;
    (total.otherFolders ??= []).push({
      mailbox: r.mailbox,
      uidValidity: r.uidValidity,
      watermark: r.watermark,
      started: r.started.length,
      more: r.more,
    });
  }
  return total;
}

/** When the run (or its chain of continued runs) times out; no timeout: never. */
function deadline(): number {
  const info = workflowInfo();
  const ends = [
    info.executionTimeoutMs === undefined ? Infinity : info.startTime.getTime() + info.executionTimeoutMs,
    info.runTimeoutMs === undefined ? Infinity : info.runStartTime.getTime() + info.runTimeoutMs,
  ];
  return Math.min(...ends);
}
