/**
 * MailboxWatchWorkflow (push intake, IMAP IDLE) driven on the real servers of the capture: the
 * worker there runs with IMAP_IDLE on (the default) and serves the `default` mailbox (INBOX) of
 * the single-account variables. The watcher wakes the mailbox's poll schedule, which the capture
 * creates the way `email-rag schedules install` does (its interval, an hour, never fires here).
 */
import { installSchedules, pollScheduleId } from '../../../src/operations/schedules';
import { WORKFLOW_TYPES } from '../../../src/platform/contract';
import { imapEmailId } from '../../../src/email/email-input';
import { DEFAULT_MAILBOX_ID } from '../../../src/mailboxes/mailbox-registry';
import { watchWorkflowId } from '../../../src/mailboxes/schedule-ids';
import type { WatchRunInput, WatchRunResult } from '../../../src/mailboxes/mailbox-watch.workflow';
import { appendMessages } from '../../support/services/imap-intake';
import { waitFor } from '../../support/wait';
import { mailOf, type CaptureContext, type Handle, type Scenario } from './scenario-kit';

/**
 * One session, short enough to end within the capture (production: 25 minutes), long enough for
 * the connect, the wake-up on connecting, one appended mail and the poll run it wakes.
 */
const SESSION_SECONDS = 40;

/** How often the poll schedule of the default mailbox has started a run so far. */
async function pollRuns(ctx: CaptureContext): Promise<number> {
  const { info } = await ctx.client.schedule.getHandle(pollScheduleId(DEFAULT_MAILBOX_ID)).describe();
  return info.numActionsTaken;
}

/** The `wakeups` the run's watchFolder activities returned (one per folder that completed). */
async function wakeupsOf(handle: Handle): Promise<number[]> {
  const events = (await handle.fetchHistory()).events ?? [];
  return events.flatMap((e) => {
    const data = e.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data;
    if (!data) return [];
    const result = JSON.parse(Buffer.from(data).toString('utf8')) as { wakeups?: number };
    return typeof result.wakeups === 'number' ? [result.wakeups] : [];
  });
}

export const WATCH_SCENARIOS: Scenario[] = [
  {
    // A watcher session of the default mailbox: connecting wakes the poll once, a mail appended
    // to INBOX wakes it again and the run it starts takes the mail; at the session's end the run
    // continues as new (the history saved is that first run, closed by its ContinuedAsNew).
    name: 'watch-wakes-poll',
    // It triggers the mailbox's poll, which takes whatever the other scenarios appended.
    alone: true,
    expect: 'continued-as-new',
    run: async (ctx) => {
      const installed = await installSchedules(ctx.client, ctx.config);
      try {
        const before = await pollRuns(ctx);
        const input: WatchRunInput = { mailboxId: DEFAULT_MAILBOX_ID, sessionSeconds: SESSION_SECONDS };
        // As installWatchers starts it, with a short session.
        const started = await ctx.client.workflow.start(WORKFLOW_TYPES.mailboxWatch, {
          workflowId: watchWorkflowId(DEFAULT_MAILBOX_ID),
          taskQueue: ctx.config.temporal.taskQueue,
          args: [input],
          workflowIdConflictPolicy: 'USE_EXISTING',
        });
        const first = ctx.client.workflow.getHandle(started.workflowId, started.firstExecutionRunId);
        // Connecting wakes the poll once (for mail that came while no watcher was connected).
        await waitFor('the watcher woke the poll on connecting', async () => (await pollRuns(ctx)) > before, 30_000, 300);
        const [appended] = await appendMessages(ctx.config, [mailOf('watch-wakes-poll', 'Frage zur Lieferung 4410')]);
        const emailId = imapEmailId(ctx.config.imap.user, ctx.config.imap.folder, appended!.uidValidity, appended!.uid);
        // The notice wakes the poll; the run it starts takes the mail.
        await waitFor(
          `the woken poll started ${emailId}`,
          async () => (await ctx.client.workflow.getHandle(emailId).describe()) && true,
          30_000,
          300,
        );
        await waitFor(
          'the session ended (continued as new)',
          async () => (await first.describe()).status.name === 'CONTINUED_AS_NEW',
          (SESSION_SECONDS + 60) * 1000,
          500,
        );
        const wakeups = await wakeupsOf(first);
        if (wakeups.length !== 1 || wakeups[0]! < 2)
          throw new Error(`expected one folder with 2+ wake-ups, got ${JSON.stringify(wakeups)}`);
        // The next session has begun: end the chain as `schedules install` does for a watcher it no longer wants.
        await ctx.client.workflow.getHandle(started.workflowId).terminate('replay capture done');
        return first;
      } finally {
        for (const s of installed)
          await ctx.client.schedule
            .getHandle(s.id)
            .delete()
            .catch(() => undefined);
      }
    },
  },
  {
    // A watcher started for a mailbox the registry does not serve (removed from MAILBOXES_FILE)
    // ends at once; a disabled mailbox or IMAP_IDLE=off takes the same path (one planWatch, then
    // the result). The capture's worker serves only the `default` mailbox.
    name: 'watch-mailbox-removed',
    expect: 'removed',
    run: async (ctx) => {
      const handle = await ctx.client.workflow.start(WORKFLOW_TYPES.mailboxWatch, {
        workflowId: watchWorkflowId('removed-mailbox'),
        taskQueue: ctx.config.temporal.taskQueue,
        args: [{ mailboxId: 'removed-mailbox' } satisfies WatchRunInput],
      });
      const result = (await handle.result()) as WatchRunResult;
      if (result.stopped !== 'removed') throw new Error(`the watcher ended ${JSON.stringify(result)}, expected removed`);
      return handle;
    },
  },
];
