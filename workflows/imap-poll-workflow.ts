import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { PollResult } from '../activities/poll-activities';
import { PROFILES, taskQueueFor } from './activity-profiles';

/**
 * Passes one scheduled run may take before it leaves the rest to the next run: with the default
 * batch of 100 that is 5,000 messages, and the run's history stays small (a few events a pass).
 */
export const MAX_POLL_PASSES = 50;

/**
 * Started by the IMAP poll schedule: passes over new UIDs above the watermark. A pass that took a
 * full batch while the backlog had room is followed by the next one at once, so mail that arrived
 * during an outage does not wait one schedule interval per batch (bounded by BACKLOG_LIMIT).
 */
export async function ImapPollWorkflow(input: { mailbox?: string } = {}): Promise<PollResult> {
  const { pollMailbox } = proxyActivities<Activities>({
    ...PROFILES.poll.options,
    taskQueue: taskQueueFor(workflowInfo().taskQueue, 'poll'),
  });
  const first = await pollMailbox(input);
  const total: PollResult = { ...first, started: [...first.started], existing: [...first.existing] };
  let last = first;
  for (let pass = 1; last.more && pass < MAX_POLL_PASSES; pass++) {
    last = await pollMailbox({
      ...input,
      run: { uidValidity: first.uidValidity, sinceUid: first.from ?? 0, started: total.started.length },
    });
    if (last.uidValidity !== first.uidValidity) break;
    total.started.push(...last.started);
    total.existing.push(...last.existing);
    total.backlog = last.backlog;
    total.watermark = last.watermark;
    total.more = last.more;
  }
  return total;
}
