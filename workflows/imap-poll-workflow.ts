import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { PollResult } from '../activities/poll-activities';
import { PROFILES } from './activity-profiles';

const { pollMailbox } = proxyActivities<Activities>(PROFILES.poll.options);

/** Started by the IMAP poll schedule: one pass over new UIDs above the watermark. */
export async function ImapPollWorkflow(input: { mailbox?: string } = {}): Promise<PollResult> {
  return pollMailbox(input);
}
