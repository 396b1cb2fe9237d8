import { Context } from '@temporalio/activity';
import { FAILURE_TYPES } from '../../platform/contract';
import { SYSTEM_ACTORS, EMAIL_AUDIT_EVENTS } from '../email.contract';
import { SEND_STATUS } from '../email-status';
import { TransientError, errorMessage } from '../../platform/errors';
import type { SentFolderLookup, FolderMark, FoundMessage, ImapConnection } from '../../mailboxes';
import type { AuditLog } from '../../platform/store.port';
import type { DraftStore, SendAttemptRecord, SendLedger } from '../email-stores.port';

/**
 * One look may not hang the send step: imapflow's socket timeout (two minutes) is longer than the
 * step itself. A look that takes longer counts as an IMAP failure: the send stays in doubt.
 */
const LOOK_TIMEOUT_MS = 10_000;

/** What the lookup saw: the copy, or nothing after every look (with the IMAP failures on the way). */
export type SentLookupResult = { found: FoundMessage; looks: number } | { found: null; looks: number; failures: string[] };

/** Waits `ms`, heartbeating each second (the worker sees the step alive; a cancellation ends the wait). */
async function heartbeatingWait(ms: number): Promise<void> {
  const ctx = Context.current();
  for (let left = ms; left > 0; left -= 1_000) {
    ctx.heartbeat();
    await ctx.sleep(Math.min(1_000, left));
  }
  ctx.heartbeat();
}

async function lookOnce(mailbox: ImapConnection, folder: string, messageId: string, since?: FolderMark): Promise<FoundMessage | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new TransientError(`no answer within ${LOOK_TIMEOUT_MS} ms`, FAILURE_TYPES.imapUnavailable)),
      LOOK_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([mailbox.findByMessageId(folder, messageId, since), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Looks for the reply in the Sent folder its provider fills on receipt: after the grace period,
 * up to `attempts` times. Never throws for IMAP trouble (a failed look is a look that found
 * nothing): whatever goes wrong here, the send stays in doubt and is never made again.
 */
export async function lookUpInSent(
  mailbox: ImapConnection,
  folder: string,
  messageId: string,
  lookup: SentFolderLookup,
  since?: FolderMark,
): Promise<SentLookupResult> {
  const failures: string[] = [];
  for (let look = 1; look <= lookup.attempts; look++) {
    await heartbeatingWait(lookup.graceSeconds * 1_000);
    try {
      const found = await lookOnce(mailbox, folder, messageId, since);
      if (found) return { found, looks: look };
    } catch (err) {
      failures.push(`look ${look}: ${errorMessage(err)}`.slice(0, 500));
    }
  }
  return { found: null, looks: lookup.attempts, failures };
}

export interface DoubtContext {
  correlationId: string;
  emailId: string;
  draftId: string;
  messageId: string;
  mailboxId: string;
  folder: string;
  lookup: SentFolderLookup;
  mailbox: ImapConnection;
  /** The Sent folder before this attempt's hand-over, when this attempt took one. */
  since?: FolderMark;
}

/**
 * A send in doubt of a mailbox whose provider files what it accepts: found in Sent, it is recorded
 * `in_doubt → sent` as a person's "mark sent" would be, by the mailbox check, with where it was
 * found; not found, that is audited and the send stays in doubt. Returns where it was found.
 */
export async function resolveDoubtFromSent(
  deps: { sends: SendLedger; drafts: DraftStore; audit: AuditLog },
  ctx: DoubtContext,
  row: SendAttemptRecord,
): Promise<FoundMessage | null> {
  const result = await lookUpInSent(ctx.mailbox, ctx.folder, ctx.messageId, ctx.lookup, ctx.since);
  const by = SYSTEM_ACTORS.mailboxCheck;
  if (!result.found) {
    await deps.audit.record({
      emailId: ctx.emailId,
      correlationId: ctx.correlationId,
      eventType: EMAIL_AUDIT_EVENTS.sendNotFoundInSent,
      errorClass: 'unclear',
      actor: by,
      message:
        `${ctx.messageId} is not in ${ctx.folder} of mailbox "${ctx.mailboxId}" after ${result.looks} look(s) ` +
        `${ctx.lookup.graceSeconds} s apart${result.failures.length ? ` (${result.failures.length} failed: ${result.failures.at(-1)})` : ''}; ` +
        'the send stays in doubt for a person',
      details: { draftId: ctx.draftId, folder: ctx.folder, looks: result.looks, failures: result.failures },
      eventKey: `${ctx.correlationId}:${EMAIL_AUDIT_EVENTS.sendNotFoundInSent}:${ctx.draftId}:${row.attempts}`,
    });
    return null;
  }
  const { found } = result;
  const note = `found in ${found.folder} as UID ${found.uid} (UIDVALIDITY ${found.uidValidity}) after ${result.looks} look(s)`;
  if (!(await deps.sends.confirmSent(ctx.draftId, by, note))) {
    // Someone else decided meanwhile (a person, or another attempt's lookup): their word stands.
    const now = await deps.sends.get(ctx.draftId);
    if (now?.status !== SEND_STATUS.sent) return null;
  }
  await deps.drafts.markSent(ctx.draftId);
  await deps.audit.record({
    emailId: ctx.emailId,
    correlationId: ctx.correlationId,
    eventType: EMAIL_AUDIT_EVENTS.sendMarkedSent,
    actor: by,
    message: `the mailbox check found ${ctx.messageId} in ${found.folder} of mailbox "${ctx.mailboxId}" (UID ${found.uid}): the customer got it`,
    details: { draftId: ctx.draftId, messageId: ctx.messageId, ...found, looks: result.looks, resolvedBy: by },
    eventKey: `${ctx.correlationId}:${EMAIL_AUDIT_EVENTS.sendMarkedSent}:${ctx.draftId}`,
  });
  return found;
}
