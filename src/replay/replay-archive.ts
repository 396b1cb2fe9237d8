/**
 * Reads an archive (mbox, Maildir, a folder of .eml: src/archive-import's reader) into the mails a
 * replay pairs. Only what a replay needs is kept; a message without a date cannot be placed
 * before or after anything and is left out, as are the unreadable and the oversized (counted).
 */
import { parseRawEmail } from '../email';
import { planArchive, readArchive } from '../archive-import/index.adapters';
import { normalMessageId, shortHash, type ArchiveMail } from './replay-pairing';

export interface ArchiveRead {
  mails: ArchiveMail[];
  /** Messages read from the archive, whatever became of them. */
  read: number;
  /** Left out: no date, unparseable, unreadable or above the size limit. */
  skipped: number;
}

export async function readArchiveMails(target: string, maxBytes: number): Promise<ArchiveRead> {
  const plan = planArchive(target);
  const mails: ArchiveMail[] = [];
  const seen = new Set<string>();
  let read = 0;
  let skipped = 0;
  for await (const item of readArchive(plan, maxBytes, () => undefined)) {
    read++;
    if (item.kind !== 'message') {
      skipped++;
      continue;
    }
    const mail = await toArchiveMail(item.raw).catch(() => null);
    // The same message twice (an mbox and a Sent folder both hold it) counts once.
    if (!mail || seen.has(mail.key)) {
      skipped++;
      continue;
    }
    seen.add(mail.key);
    mails.push(mail);
  }
  return { mails, read, skipped };
}

async function toArchiveMail(raw: Buffer): Promise<ArchiveMail | null> {
  const key0 = shortHash(raw);
  const parsed = await parseRawEmail(raw, key0);
  if (!parsed.date || Number.isNaN(parsed.date.getTime()) || !parsed.from) return null;
  const messageId = normalMessageId(parsed.messageId);
  return {
    key: messageId ? shortHash(messageId) : key0,
    messageId,
    inReplyTo: normalMessageId(parsed.inReplyTo),
    references: parsed.references.map((r) => normalMessageId(r)).filter((r): r is string => r !== null),
    from: parsed.from,
    replyTo: parsed.replyTo,
    to: [...parsed.to, ...parsed.cc],
    date: parsed.date,
    subject: parsed.subject,
    text: parsed.text,
  };
}
