import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { PollInput, PollResult } from '../activities/poll-activities';
import { PROFILES, taskQueueFor } from './activity-profiles';

/**
 * Passes one scheduled run may take, over all folders of its mailbox, before it leaves the rest to
 * the next run: with the default batch of 100 that is 5,000 messages, and the run's history stays
 * small (a few events a pass).
 */
export const MAX_POLL_PASSES = 50;

/** What one run did: the first folder's figures, with the started and existing of every folder. */
export interface PollRunResult extends PollResult {
  /** One line per folder polled after the first (multi-folder mailboxes only). */
  otherFolders?: Array<{ mailbox: string; uidValidity: number; watermark: number; started: number; more?: boolean }>;
}

/**
 * Started by a mailbox's poll schedule: passes over new UIDs above each folder's watermark. A pass
 * that took a full batch while the backlog had room is followed by the next one at once, so mail
 * that arrived during an outage does not wait one schedule interval per batch (bounded by
 * BACKLOG_LIMIT). `{ mailboxId }` polls every folder of that registry entry; `{ mailbox }` alone
 * (schedules and runs from before the registry) is that folder of the default mailbox.
 */
export async function ImapPollWorkflow(input: { mailboxId?: string; mailbox?: string } = {}): Promise<PollRunResult> {
  const { pollMailbox } = proxyActivities<Activities>({
    ...PROFILES.poll.options,
    taskQueue: taskQueueFor(workflowInfo().taskQueue, 'poll'),
  });
  let passes = 0;
  /** Drains one folder; `folder` undefined: the first folder, as the activity picks it. */
  const drain = async (folder?: string): Promise<PollResult> => {
    const base: PollInput = folder === undefined ? input : { ...input, folder };
    const first = await pollMailbox(base);
    passes += 1;
    const total: PollResult = { ...first, started: [...first.started], existing: [...first.existing] };
    let last = first;
    while (last.more && passes < MAX_POLL_PASSES) {
      last = await pollMailbox({
        ...base,
        run: { uidValidity: first.uidValidity, sinceUid: first.from ?? 0, started: total.started.length },
      });
      passes += 1;
      if (last.uidValidity !== first.uidValidity) break;
      total.started.push(...last.started);
      total.existing.push(...last.existing);
      total.backlog = last.backlog;
      total.watermark = last.watermark;
      total.more = last.more;
    }
    return total;
  };
  const total: PollRunResult = await drain();
  // Results of runs from before the registry carry no folder list: one folder, as then.
  const others = (total.folders ?? []).filter((f) => f !== total.mailbox);
  for (const folder of others) {
    if (passes >= MAX_POLL_PASSES) break;
    const r = await drain(folder);
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
