import { CancellationScope, continueAsNew, makeContinueAsNewFunc, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { WatchActivities } from './watch.activities';
import { PROFILES, taskQueueFor } from '../platform/activity-profiles.workflow';

/** One session of a folder's watch; the run then continues as new (fresh history, registry read again). */
export const WATCH_SESSION_SECONDS = 25 * 60;
/** Kept inside the watch profile's start-to-close timeout (35 minutes). */
const WATCH_SESSION_MAX_SECONDS = 30 * 60;

export interface WatchRunInput {
  mailboxId: string;
  /** Session length (tests use short ones); at most 30 minutes. */
  sessionSeconds?: number;
}

export interface WatchRunResult {
  mailboxId: string;
  /** Why the watcher ended: the mailbox is disabled or removed, IMAP_IDLE is off, or it was cancelled. */
  stopped: 'disabled' | 'removed' | 'off' | 'cancelled';
}

/**
 * The push intake of one mailbox (workflow id `watch-<mailbox id>`, so one per mailbox however
 * many workers or installs start it). Each run reads the mailbox from the registry, holds every
 * folder in IMAP IDLE for one session (one heartbeating activity per folder, which wakes the
 * mailbox's poll schedule on new mail and reconnects through its retry policy), then continues
 * as new. It ends when the mailbox is disabled or removed or IMAP_IDLE is off. The poll schedule
 * stays the safety net: the watcher only makes its next run come sooner.
 */
export async function MailboxWatchWorkflow(input: WatchRunInput): Promise<WatchRunResult> {
  const { planWatch } = proxyActivities<WatchActivities>({
    ...PROFILES.bookkeeping.options,
    taskQueue: taskQueueFor(workflowInfo().taskQueue, 'bookkeeping'),
  });
  const { watchFolder } = proxyActivities<WatchActivities>({
    ...PROFILES.watch.options,
    taskQueue: taskQueueFor(workflowInfo().taskQueue, 'watch'),
  });
  const plan = await planWatch({ mailboxId: input.mailboxId });
  if (!plan.watch) return { mailboxId: input.mailboxId, stopped: plan.reason ?? 'off' };
  const sessionSeconds = Math.min(input.sessionSeconds ?? WATCH_SESSION_SECONDS, WATCH_SESSION_MAX_SECONDS);
  const untilMs = Date.now() + sessionSeconds * 1000;
  // Retried without end, so a folder's watch settles only at the session's end (or when cancelled).
  await Promise.allSettled(plan.folders.map((folder) => watchFolder({ mailboxId: input.mailboxId, folder, untilMs })));
  // `temporal workflow cancel watch-<id>` stops the watcher for good (until the next install).
  if (CancellationScope.current().consideredCancelled) return { mailboxId: input.mailboxId, stopped: 'cancelled' };
  return nextSession(input);
}

/**
 * The next session. Under Worker Deployment Versioning runs are pinned to their build; a watcher
 * would stay on an old build forever (and keep it from draining), so when a newer version is the
 * target the next session starts on it. Unversioned workers never see the option.
 */
function nextSession(input: WatchRunInput): Promise<never> {
  if (workflowInfo().targetWorkerDeploymentVersionChanged)
    return makeContinueAsNewFunc<typeof MailboxWatchWorkflow>({ initialVersioningBehavior: 'AUTO_UPGRADE' })(input);
  return continueAsNew<typeof MailboxWatchWorkflow>(input);
}
