import { Context } from '@temporalio/activity';
import { boundedMap } from '../lib/bounded-map';
import { imapEmailId } from '../lib/domain';
import { effectivePriority } from '../lib/priority-rules';
import { emailDisplay } from '../lib/workflow-summary';
import { correlationId } from './context';
import type { ActivityDeps } from './deps';

/** Workflow starts in flight at once during a poll pass. */
const START_CONCURRENCY = 8;

export interface PollResult {
  mailbox: string;
  uidValidity: number;
  started: string[];
  existing: string[];
  backlog: number;
  watermark: number;
  /** The watermark before this pass. */
  from?: number;
  /** New mail is still waiting above the watermark and the backlog left room: poll again at once. */
  more?: boolean;
}

export interface PollInput {
  mailbox?: string;
  /**
   * Set by the poll workflow on its second and later passes: what it started since `sinceUid`.
   * Those workflows count towards the backlog until they stored their message.
   */
  run?: { uidValidity: number; sinceUid: number; started: number };
}

/**
 * Reads new UIDs above the watermark and starts one EmailWorkflow each. Idempotent: the workflow
 * id is derived from mailbox + UIDVALIDITY + UID, so overlapping polls or a lost watermark write
 * start nothing twice.
 */
export function createPollActivities(deps: Pick<ActivityDeps, 'mailbox' | 'watermarks' | 'starter' | 'audit' | 'messages' | 'settings'>) {
  return {
    async pollMailbox(input: PollInput): Promise<PollResult> {
      const { settings } = deps;
      const mailbox = input.mailbox ?? settings.mailbox;
      const cid = correlationId();
      let mark = await deps.watermarks.get(settings.account, mailbox);
      let listing = await deps.mailbox.listSince(mailbox, mark?.lastUid ?? 0, settings.pollBatchSize);
      if (!mark || mark.uidValidity !== listing.uidValidity) {
        // First connection, or the mailbox was recreated (old UIDs mean nothing). What is there now
        // is history: skipped by default, or imported but never answered with IMAP_IMPORT_HISTORY.
        mark = {
          uidValidity: listing.uidValidity,
          lastUid: settings.importHistory ? 0 : listing.highestUid,
          historyUntilUid: listing.highestUid,
        };
        await deps.watermarks.advance(settings.account, mailbox, mark);
        await deps.audit.record({
          emailId: null,
          correlationId: cid,
          eventType: 'mailbox_connected',
          message:
            `${mailbox} connected (UIDVALIDITY ${listing.uidValidity}) with ${listing.highestUid > 0 ? `mail up to UID ${listing.highestUid}` : 'no mail'}; ` +
            (settings.importHistory ? 'existing mail is imported as history, not answered' : 'existing mail is left alone'),
          details: { uidValidity: listing.uidValidity, highestUid: listing.highestUid, importHistory: settings.importHistory },
        });
        listing = await deps.mailbox.listSince(mailbox, mark.lastUid, settings.pollBatchSize);
      }
      const started: string[] = [];
      const existing: string[] = [];
      const from = mark.lastUid;
      let last = mark.lastUid;
      // Backpressure (seed 004): while the pipeline holds many unfinished emails, take fewer in.
      const backlog = (await deps.messages.countUnfinished()) + (await notYetStored(input.run, mailbox, listing.uidValidity));
      const room = Math.max(0, settings.backlogLimit - backlog);
      const batch = listing.messages.slice(0, room);
      if (batch.length < listing.messages.length) {
        await deps.audit.record({
          emailId: null,
          correlationId: cid,
          eventType: 'backpressure',
          message: `backlog of ${backlog} unfinished emails (limit ${settings.backlogLimit}): taking ${batch.length} of ${listing.messages.length} new messages now`,
          details: { backlog, limit: settings.backlogLimit, taken: batch.length, waiting: listing.messages.length },
        });
      }
      // Started a few at a time: one by one, the starts alone took longer than the emails' pipeline.
      const outcomes = await boundedMap(batch, START_CONCURRENCY, async (msg) => {
        const emailId = imapEmailId(settings.account, mailbox, listing.uidValidity, msg.uid);
        const priority = effectivePriority(msg.headerPriority, msg, settings.priorityRules);
        const outcome = await deps.starter.startEmail(
          {
            emailId,
            source: { kind: 'imap', mailbox, uidValidity: listing.uidValidity, uid: msg.uid },
            historyOnly: msg.uid <= mark.historyUntilUid,
            priority,
          },
          priority,
          // From the envelope fetched with the listing: the Web UI shows subject and sender before parsing.
          emailDisplay({
            subject: msg.subject,
            fromName: msg.fromName,
            fromAddress: msg.from,
            priority,
            mailbox,
            uid: msg.uid,
            messageId: msg.messageId,
            inReplyTo: msg.inReplyTo,
          }),
        );
        Context.current().heartbeat(msg.uid);
        return { emailId, outcome };
      });
      // The watermark moves only past a batch whose every workflow exists (a failed start throws above).
      for (const { emailId, outcome } of outcomes) (outcome === 'started' ? started : existing).push(emailId);
      if (batch.length > 0) last = batch[batch.length - 1]!.uid;
      if (last > mark.lastUid) await deps.watermarks.advance(settings.account, mailbox, { ...mark, lastUid: last });
      return {
        mailbox,
        uidValidity: listing.uidValidity,
        started,
        existing,
        backlog,
        watermark: last,
        from,
        // Only a full, uncut batch says more may wait; a cut one waits for the backlog to shrink.
        more: batch.length === listing.messages.length && batch.length >= settings.pollBatchSize && last < listing.highestUid,
      };
    },
  };

  async function notYetStored(run: PollInput['run'], mailbox: string, uidValidity: number): Promise<number> {
    if (!run || run.started === 0 || run.uidValidity !== uidValidity) return 0;
    const stored = await deps.messages.countStoredAbove(mailbox, uidValidity, run.sinceUid);
    return Math.max(0, run.started - stored);
  }
}
