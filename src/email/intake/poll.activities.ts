import { Context } from '@temporalio/activity';
import { boundedMap } from '../../platform/bounded-map';
import { imapEmailId } from '../email-input';
import { FAILURE_TYPES } from '../../platform/contract';
import { PermanentError } from '../../platform/errors';
import { effectivePriority } from '../../triage';
import { classifyError } from '../../platform/retry-decision';
import { emailDisplay } from '../email-display';
import { correlationId } from '../../platform/activity-context';
import type { EmailDeps } from '../email-deps';
import { mailboxOf, MAILBOX_AUDIT_EVENTS } from '../../mailboxes';
import { type PollInput, type PollResult } from '../email-activities';
import { scanSentFolder } from '../answered-elsewhere/sent-scan';

/** Workflow starts in flight at once during a poll pass. */
const START_CONCURRENCY = 8;

/**
 * Reads new UIDs above the watermark and starts one EmailWorkflow each. Idempotent: the workflow
 * id is derived from account + folder + UIDVALIDITY + UID, so overlapping polls or a lost
 * watermark write start nothing twice. Each pass records the mailbox's poll health; a failure is
 * recorded and rethrown, so the IMAP retry rule and the schedule's next run still apply.
 */
export function createPollActivities(
  deps: Pick<
    EmailDeps,
    'mailboxes' | 'health' | 'watermarks' | 'starter' | 'audit' | 'messages' | 'settings' | 'signals' | 'outsideReplies'
  >,
) {
  return {
    async pollMailbox(input: PollInput): Promise<PollResult> {
      const served = mailboxOf(deps, input.mailboxId);
      const { entry } = served;
      const folder = input.folder ?? input.mailbox ?? entry.imap.folders[0] ?? 'INBOX';
      // Switched off on purpose: refused, but no failure in its poll health.
      if (!entry.enabled) {
        throw new PermanentError(`mailbox "${entry.id}" is disabled in the registry; not polled`, FAILURE_TYPES.mailboxDisabled);
      }
      try {
        const result = await poll(served, folder, input);
        await deps.health.recordPollSuccess({ mailboxId: entry.id, folder, started: result.started.length }).catch(() => undefined);
        // Once a run, after the inbox: answers people sent beside the assistant (its trouble is audited, never the poll's).
        const sent = input.run === undefined && input.folder === undefined ? await scanSentFolder(deps, served) : null;
        const answered = sent && sent.answered.length > 0 ? { answeredElsewhere: sent.answered } : {};
        return input.folder === undefined && input.mailbox === undefined
          ? { ...result, folders: entry.imap.folders, ...answered }
          : { ...result, ...answered };
      } catch (err) {
        const c = classifyError(err);
        // Bookkeeping must not hide the poll's own failure: a database outage loses the note only.
        const before = await deps.health
          .recordPollFailure({ mailboxId: entry.id, folder, error: `${c.code}: ${c.message}`, errorClass: c.errorClass })
          .catch(() => undefined);
        // Waiting for its first sign-in is no failure of the poll: shown in its health, no dead letter.
        if (c.code === FAILURE_TYPES.mailboxNotSignedIn) return nothingPolled(entry.id, folder, { notSignedIn: true });
        // The failure the poll before ended with for good, again: one dead letter a stretch, not one a
        // minute until someone acts. The poll health counts each and the alert stays on.
        if (c.errorClass === 'permanent' && before?.standing?.startsWith(`${c.code}:`))
          return nothingPolled(entry.id, folder, { stillFailing: c.code });
        throw err;
      }
    },
  };

  /** A pass that polled nothing, and why (its poll health says so too); no other folder follows it. */
  function nothingPolled(mailboxId: string, mailbox: string, why: Pick<PollResult, 'notSignedIn' | 'stillFailing'>): PollResult {
    return { mailboxId, mailbox, uidValidity: 0, started: [], existing: [], backlog: 0, watermark: 0, folders: [], ...why };
  }

  async function poll(served: ReturnType<typeof mailboxOf>, mailbox: string, input: PollInput): Promise<PollResult> {
    const { settings } = deps;
    const { entry } = served;
    const account = entry.imap.user;
    const cid = correlationId();
    let mark = await deps.watermarks.get(account, mailbox);
    let listing = await served.imap.listSince(mailbox, mark?.lastUid ?? 0, settings.pollBatchSize);
    if (!mark || mark.uidValidity !== listing.uidValidity) {
      // First connection, or the mailbox was recreated (old UIDs mean nothing). What is there now
      // is history: skipped by default, or imported but never answered with IMAP_IMPORT_HISTORY.
      mark = {
        uidValidity: listing.uidValidity,
        lastUid: settings.importHistory ? 0 : listing.highestUid,
        historyUntilUid: listing.highestUid,
      };
      await deps.watermarks.advance(account, mailbox, mark);
      await deps.audit.record({
        emailId: null,
        correlationId: cid,
        eventType: MAILBOX_AUDIT_EVENTS.connected,
        message:
          `${entry.id}: ${mailbox} of ${account} connected (UIDVALIDITY ${listing.uidValidity}) with ${listing.highestUid > 0 ? `mail up to UID ${listing.highestUid}` : 'no mail'}; ` +
          (settings.importHistory ? 'existing mail is imported as history, not answered' : 'existing mail is left alone'),
        details: {
          mailboxId: entry.id,
          folder: mailbox,
          uidValidity: listing.uidValidity,
          highestUid: listing.highestUid,
          importHistory: settings.importHistory,
        },
      });
      listing = await served.imap.listSince(mailbox, mark.lastUid, settings.pollBatchSize);
    }
    const started: string[] = [];
    const existing: string[] = [];
    const from = mark.lastUid;
    let last = mark.lastUid;
    // Backpressure: take in only as many new messages as the backlog of unfinished emails has room
    // for under BACKLOG_LIMIT (docs/queue-model.md).
    const backlog = (await deps.messages.countInIntake()) + (await notYetStored(input.run, entry.id, mailbox, listing.uidValidity));
    const room = Math.max(0, settings.backlogLimit - backlog);
    const batch = listing.messages.slice(0, room);
    if (batch.length < listing.messages.length) {
      await deps.audit.record({
        emailId: null,
        correlationId: cid,
        eventType: MAILBOX_AUDIT_EVENTS.backpressure,
        message: `backlog of ${backlog} unfinished emails (limit ${settings.backlogLimit}): taking ${batch.length} of ${listing.messages.length} new messages now`,
        details: { backlog, limit: settings.backlogLimit, taken: batch.length, waiting: listing.messages.length },
      });
    }
    // Started a few at a time: one by one, the starts alone took longer than the emails' pipeline.
    const outcomes = await boundedMap(batch, START_CONCURRENCY, async (msg) => {
      const emailId = imapEmailId(account, mailbox, listing.uidValidity, msg.uid);
      const priority = effectivePriority(msg.headerPriority, msg, entry.priorityRules);
      const outcome = await deps.starter.startEmail(
        {
          emailId,
          source: { kind: 'imap', mailboxId: entry.id, folder: mailbox, mailbox, uidValidity: listing.uidValidity, uid: msg.uid },
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
          mailboxId: entry.id,
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
    if (last > mark.lastUid) await deps.watermarks.advance(account, mailbox, { ...mark, lastUid: last });
    return {
      mailboxId: entry.id,
      mailbox,
      uidValidity: listing.uidValidity,
      started,
      existing,
      backlog,
      watermark: last,
      from,
      // Only a full, uncut batch says more may wait; a cut one waits for the backlog to shrink.
      more: batch.length === listing.messages.length && batch.length >= settings.pollBatchSize && last < listing.highestUid,
      ...(batch.length < listing.messages.length ? { cutByBacklog: true, pollIntervalSeconds: entry.imap.pollIntervalSeconds } : {}),
    };
  }

  async function notYetStored(run: PollInput['run'], mailboxId: string, mailbox: string, uidValidity: number): Promise<number> {
    if (!run || run.started === 0 || run.uidValidity !== uidValidity) return 0;
    const stored = await deps.messages.countStoredAbove(mailbox, uidValidity, run.sinceUid, mailboxId);
    return Math.max(0, run.started - stored);
  }
}
