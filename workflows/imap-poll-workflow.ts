import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { PollResult } from '../activities/poll-activities';
import { PROFILES, taskQueueFor } from './activity-profiles';

/** Started by the IMAP poll schedule: one pass over new UIDs above the watermark. */
export async function ImapPollWorkflow(input: { mailbox?: string } = {}): Promise<PollResult> {
  const { pollMailbox } = proxyActivities<Activities>({
    ...PROFILES.poll.options,
    taskQueue: taskQueueFor(workflowInfo().taskQueue, 'poll'),
  });
  return pollMailbox(input);
}
