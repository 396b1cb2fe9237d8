/**
 * Reads what arrived in a mailbox's Sent folder since the last look: every message a person sent
 * from their own client (a shared mailbox's Sent folder, or the one a provider fills on submit) is
 * considered as an outside answer. Run with each poll of the mailbox (the IDLE watcher wakes that
 * poll when something is filed in Sent too). The folder's watermark moves past a message only
 * after it was considered, so a worker lost in between loses nothing: the next look reads it again.
 */
import { log } from '@temporalio/activity';
import { errorMessage } from '../../platform/errors';
import { FAILURE_TYPES } from '../../platform/contract';
import { classifyError } from '../../platform/retry-decision';
import { correlationId } from '../../platform/activity-context';
import type { MailboxListing, ServedMailbox, Watermark } from '../../mailboxes';
import type { EmailDeps } from '../email-deps';
import { EMAIL_AUDIT_EVENTS } from '../email.contract';
import { parseRawEmail } from '../intake/mail-parser';
import { considerOutsideReply, outsideReply, type OutsideAnswerDeps } from './outside-answers';
import { FOUND_VIA, type OutsideReply } from './outside-replies.port';

/** The mark of a Sent folder that did not exist at the first look (no real folder has UIDVALIDITY 0). */
const NOT_THERE_YET: Watermark = { uidValidity: 0, lastUid: 0, historyUntilUid: 0 };

/** Messages read per look; a busy Sent folder is read on over the next polls. */
const SCAN_BATCH = 200;

export type SentScanDeps = OutsideAnswerDeps & Pick<EmailDeps, 'watermarks' | 'settings'>;

export interface SentScan {
  folder: string;
  read: number;
  answered: string[];
}

/** One look at the Sent folder; trouble is audited (once an hour) and never stops the inbox's poll. */
export async function scanSentFolder(deps: SentScanDeps, served: ServedMailbox): Promise<SentScan | null> {
  const { entry } = served;
  const folder = entry.imap.sentFolder;
  // A Sent folder polled as an inbox folder is read as incoming mail: never twice.
  if (!deps.outsideReplies || !folder || entry.imap.folders.includes(folder)) return null;
  try {
    return await readNew(deps, served, folder);
  } catch (err) {
    // A Sent folder that does not exist yet holds no answers; whatever is filed once it exists is new.
    if (classifyError(err).code === FAILURE_TYPES.imapNoMailbox) {
      const account = entry.imap.user;
      if (!(await deps.watermarks.get(account, folder))) await deps.watermarks.advance(account, folder, NOT_THERE_YET);
      return { folder, read: 0, answered: [] };
    }
    const hour = new Date().toISOString().slice(0, 13);
    log.warn('Sent folder not read for outside answers', { mailboxId: entry.id, folder, error: errorMessage(err) });
    await deps.audit
      .record({
        emailId: null,
        correlationId: correlationId(),
        eventType: EMAIL_AUDIT_EVENTS.sentScanFailed,
        errorClass: classifyError(err).errorClass,
        message: `${entry.id}: ${folder} not read for answers sent beside the assistant: ${errorMessage(err)}; the next poll tries again`,
        details: { mailboxId: entry.id, folder },
        eventKey: `${entry.id}:${EMAIL_AUDIT_EVENTS.sentScanFailed}:${hour}`,
      })
      .catch(() => undefined);
    return null;
  }
}

async function readNew(deps: SentScanDeps, served: ServedMailbox, folder: string): Promise<SentScan> {
  const { entry } = served;
  const account = entry.imap.user;
  const mark = await deps.watermarks.get(account, folder);
  const listing = await served.imap.listSince(folder, mark?.lastUid ?? 0, SCAN_BATCH);
  // The folder was missing at the first look and exists now: all of it came later, all of it is new.
  if (mark?.uidValidity === NOT_THERE_YET.uidValidity)
    return readFrom(deps, served, folder, { ...NOT_THERE_YET, uidValidity: listing.uidValidity }, listing);
  if (!mark || mark.uidValidity !== listing.uidValidity) {
    // First look (or the folder was recreated): what is there is history, never an answer to now.
    await deps.watermarks.advance(account, folder, {
      uidValidity: listing.uidValidity,
      lastUid: listing.highestUid,
      historyUntilUid: listing.highestUid,
    });
    return { folder, read: 0, answered: [] };
  }
  return readFrom(deps, served, folder, mark, listing);
}

async function readFrom(
  deps: SentScanDeps,
  served: ServedMailbox,
  folder: string,
  mark: Watermark,
  listing: MailboxListing,
): Promise<SentScan> {
  const account = served.entry.imap.user;
  const answered: string[] = [];
  // Our own replies' copies (most of what a busy Sent folder holds) are known by their Message-ID
  // from the listing: neither read nor parsed, and the mark moves past them with the next one read.
  const named = listing.messages.map((m) => m.messageId).filter((id): id is string => Boolean(id));
  const ours = named.length > 0 && deps.outsideReplies ? await deps.outsideReplies.oursAmong(named) : new Set<string>();
  let marked = mark.lastUid;
  for (const ref of listing.messages) {
    if (ref.messageId && ours.has(ref.messageId)) continue;
    const reply = await readReply(deps, served, folder, listing.uidValidity, ref.uid);
    if (reply) answered.push(...(await considerOutsideReply(deps, reply)));
    await deps.watermarks.advance(account, folder, { ...mark, lastUid: ref.uid });
    marked = ref.uid;
  }
  const last = listing.messages.at(-1);
  if (last && last.uid > marked) await deps.watermarks.advance(account, folder, { ...mark, lastUid: last.uid });
  return { folder, read: listing.messages.length, answered };
}

async function readReply(
  deps: SentScanDeps,
  served: ServedMailbox,
  folder: string,
  uidValidity: number,
  uid: number,
): Promise<OutsideReply | null> {
  let raw: Buffer;
  try {
    raw = await served.imap.fetchRaw({ mailbox: folder, uidValidity, uid, maxBytes: deps.settings.maxMessageBytes });
  } catch (err) {
    // Gone meanwhile, or too large to read (a person's reply with a large attachment): skipped, noted in the log.
    if (classifyError(err).errorClass === 'permanent') {
      log.info('Sent message skipped', { folder, uid, error: errorMessage(err) });
      return null;
    }
    throw err;
  }
  const parsed = await parseRawEmail(raw, `${served.entry.id}:${folder}:${uid}`);
  if (!parsed.messageId) return null;
  return outsideReply(served.entry.id, parsed, { foundVia: FOUND_VIA.sentFolder, folder, uidValidity, uid });
}
