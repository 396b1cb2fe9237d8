/**
 * ImapPollWorkflow under backpressure, driven on the real servers of the capture (the worker's
 * BACKLOG_LIMIT is 3 there, see test/replay/capture-histories.ts). The first run of the mailbox
 * connects it (existing mail is left alone); then six new messages meet a backlog with room for
 * three: the run waits (timers) until the three it started have left the backlog (awaiting
 * approval) and takes the rest.
 */
import { DEFAULT_MAILBOX_ID } from '../../../src/mailboxes/mailbox-registry';
import { WORKFLOW_TYPES } from '../../../src/platform/contract';
import type { PollRunResult } from '../../../src/email/intake/imap-poll.workflow';
import { mailOf, type CaptureContext, type Handle, type Scenario } from './scenario-kit';
import { appendMessages } from '../../support/services/imap-intake';

/** One poll run of the default mailbox, as its schedule starts it; resolves once it ended. */
async function pollRun(ctx: CaptureContext, workflowId: string): Promise<{ handle: Handle; result: PollRunResult }> {
  const handle = await ctx.client.workflow.start(WORKFLOW_TYPES.imapPoll, {
    taskQueue: ctx.config.temporal.taskQueue,
    workflowId,
    args: [{ mailboxId: DEFAULT_MAILBOX_ID }],
  });
  return { handle, result: (await handle.result()) as PollRunResult };
}

/** Connects the mailbox (a no-op when connected), appends six messages, and runs one poll. */
async function sixNewMessages(ctx: CaptureContext, name: string): Promise<{ handle: Handle; result: PollRunResult }> {
  await pollRun(ctx, `${name}-connect`);
  await appendMessages(
    ctx.config,
    Array.from({ length: 6 }, (_, i) => mailOf(`${name}-${i}`, `Frage ${i} zur Bestellung`)),
  );
  return pollRun(ctx, name);
}

export const POLL_SCENARIOS: Scenario[] = [
  {
    name: 'poll-waits-for-backlog',
    // The backlog counts every unfinished email of the database.
    alone: true,
    expect: 'completed',
    run: async (ctx) => {
      const { handle, result } = await sixNewMessages(ctx, 'poll-waits-for-backlog');
      if (result.started.length !== 6) throw new Error(`the run started ${result.started.length} of 6: ${JSON.stringify(result)}`);
      return handle;
    },
  },
];
