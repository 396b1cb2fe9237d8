import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { parseRawEmail, STATUS, emailDisplay, type MessageStore, type WorkflowStarter, EMAIL_AUDIT_EVENTS } from '../email';
import { errorMessage } from '../platform/errors';
import type { MailboxEntry } from '../mailboxes';
import { effectivePriority } from '../triage';
import type { AuditLog } from '../platform/store.port';
import type { ArchiveItem } from './archive-sources';
import { IMPORT_AUDIT_EVENTS } from './archive-import.contract';

const HEAD_BYTES = 64 * 1024;

export type ImportOutcome = 'started' | 'known' | 'tooLarge' | 'unparseable' | 'error';

export interface ImportContext {
  store: MessageStore;
  audit: AuditLog;
  starter: WorkflowStarter;
  mailbox: MailboxEntry;
  history: boolean;
  maxBytes: number;
}

function headerBlock(head: Buffer): string {
  return (
    head
      .subarray(0, HEAD_BYTES)
      .toString('latin1')
      .split(/\r?\n\r?\n/)[0] ?? ''
  );
}

/** The id of an imported message: its Message-ID if it has one, else its bytes. */
export function fileEmailId(raw: Buffer): string {
  const messageId = /^message-id:\s*(<[^>\r\n]+>)/im.exec(headerBlock(raw))?.[1];
  return `email-file-${createHash('sha256')
    .update(messageId ?? raw)
    .digest('hex')
    .slice(0, 32)}`;
}

/** Same rule for a message too large to read whole: without a Message-ID, its head and size name it. */
function oversizedFileId(head: Buffer, size: number): string {
  if (/^message-id:\s*<[^>\r\n]+>/im.test(headerBlock(head))) return fileEmailId(head);
  return `email-file-${createHash('sha256').update(head).update(`\n${size}`).digest('hex').slice(0, 32)}`;
}

/** The header block alone, parsed: all the intake needs up front (subject, sender, priority). */
function parseHead(head: Buffer, emailId: string) {
  return parseRawEmail(Buffer.concat([Buffer.from(headerBlock(head), 'latin1'), Buffer.from('\r\n\r\n')]), emailId).catch(() => null);
}

/** Whether the mail is in already: a row that went past `fetched` has its workflow (a crash may leave a stored mail without one). */
async function alreadyIn(ctx: ImportContext, emailId: string): Promise<boolean> {
  const status = await ctx.store.statusOf(emailId);
  return status !== null && status !== STATUS.fetched;
}

const origin = (item: ArchiveItem) => path.basename(item.origin);

async function start(ctx: ImportContext, emailId: string, head: Awaited<ReturnType<typeof parseHead>>, item: ArchiveItem) {
  // Same intake rule as the poll: headers and PRIORITY_RULES decide the priority up front (an
  // oversized mail ends at its first step whatever its priority: normal).
  const priority =
    head && item.kind === 'message'
      ? effectivePriority(head.priority, { from: head.from?.address ?? null, subject: head.subject }, ctx.mailbox.priorityRules)
      : 'normal';
  const mailboxId = ctx.mailbox.id;
  return ctx.starter.startEmail(
    { emailId, source: { kind: 'stored', mailboxId }, historyOnly: ctx.history, ...(item.kind === 'message' ? { priority } : {}) },
    priority,
    emailDisplay({
      mailboxId,
      subject: head?.subject ?? null,
      fromName: head?.from?.name,
      fromAddress: head?.from?.address,
      priority,
      mailbox: 'file',
      file: origin(item),
      messageId: head?.messageId,
      inReplyTo: head?.inReplyTo,
    }),
  );
}

async function tooLarge(ctx: ImportContext, item: Extract<ArchiveItem, { kind: 'too-large' }>) {
  const emailId = oversizedFileId(item.head, item.size);
  if (await alreadyIn(ctx, emailId)) return { emailId, outcome: 'known' as const, text: 'already known' };
  const head = await parseHead(item.head, emailId);
  await ctx.store.saveOversized({
    emailId,
    source: 'file',
    mailboxId: ctx.mailbox.id,
    size: item.size,
    subject: head?.subject ?? null,
    from: head?.from?.address ?? null,
    historyOnly: ctx.history,
  });
  await ctx.audit.record({
    emailId,
    correlationId: emailId,
    eventType: EMAIL_AUDIT_EVENTS.tooLarge,
    errorClass: 'permanent',
    message: `${origin(item)} has ${item.size} bytes, above the limit of ${ctx.maxBytes} (MAX_MESSAGE_BYTES); not stored`,
    details: { size: item.size, limit: ctx.maxBytes, origin: item.origin },
    // The fetch step writes the same event under this key: one row.
    eventKey: `${emailId}:${EMAIL_AUDIT_EVENTS.tooLarge}`,
  });
  // Its workflow ends it `failed` with reason too_large, as for a polled one.
  const outcome = await start(ctx, emailId, head, item);
  const text = `too large: ${item.size} bytes, above MAX_MESSAGE_BYTES (${ctx.maxBytes})${outcome === 'exists' ? ', already known' : ''}`;
  return { emailId, outcome: 'tooLarge' as const, text };
}

async function message(ctx: ImportContext, item: Extract<ArchiveItem, { kind: 'message' }>) {
  const emailId = fileEmailId(item.raw);
  if (item.inMbox && !/^[!-9;-~]+:/.test(item.raw.subarray(0, 1000).toString('latin1'))) {
    // Junk between two From lines is a damaged spot of the mbox, not a mail: not stored (nothing
    // to run; a damaged region would flood the dead letters), but the row says where it sits. A
    // headerless .eml or Maildir file is stored as before and dies at parse into the dead letters,
    // where an operator can repair and requeue it.
    const text = 'unparseable: no header block at the start';
    await ctx.audit.record({
      emailId: null,
      correlationId: emailId,
      eventType: IMPORT_AUDIT_EVENTS.unparseable,
      errorClass: 'permanent',
      message: `${item.origin}: ${text}; not imported`,
      details: { origin: item.origin, size: item.raw.length, start: item.raw.subarray(0, 120).toString('latin1') },
      eventKey: `${emailId}:${IMPORT_AUDIT_EVENTS.unparseable}`,
    });
    return { emailId: '-', outcome: 'unparseable' as const, text };
  }
  if (await alreadyIn(ctx, emailId)) return { emailId, outcome: 'known' as const, text: 'already known' };
  const head = await parseHead(item.raw, emailId);
  await ctx.store.saveRaw({ emailId, source: 'file', mailboxId: ctx.mailbox.id, raw: item.raw, historyOnly: ctx.history });
  if (item.truncated) {
    await ctx.audit.record({
      emailId,
      correlationId: emailId,
      eventType: IMPORT_AUDIT_EVENTS.truncated,
      errorClass: 'permanent',
      message: `${item.origin}: the archive ends inside this message; imported as far as it goes`,
      details: { origin: item.origin, size: item.raw.length },
      eventKey: `${emailId}:${IMPORT_AUDIT_EVENTS.truncated}`,
    });
  }
  const outcome = await start(ctx, emailId, head, item);
  const cut = item.truncated ? ' (cut short: the archive ends inside it)' : '';
  return outcome === 'started'
    ? { emailId, outcome: 'started' as const, text: `started${cut}` }
    : { emailId, outcome: 'known' as const, text: 'already known' };
}

/**
 * Imports one message of an archive: stores it and starts its workflow, or says why not. Never
 * throws: every failure is an outcome, and an audit row where the database still answers.
 */
export async function importMessage(ctx: ImportContext, item: ArchiveItem): Promise<{ outcome: ImportOutcome; line: string }> {
  const line = (id: string, text: string) => `${id}\t${text}\t${item.origin}`;
  let emailId = '-';
  try {
    if (item.kind === 'unreadable') throw new Error(item.error);
    const r = item.kind === 'too-large' ? await tooLarge(ctx, item) : await message(ctx, item);
    return { outcome: r.outcome, line: line(r.emailId, r.text) };
  } catch (err) {
    const reason = errorMessage(err).split('\n')[0] ?? 'unknown error';
    if (item.kind !== 'unreadable') emailId = item.kind === 'message' ? fileEmailId(item.raw) : oversizedFileId(item.head, item.size);
    await ctx.audit
      .record({
        emailId: null,
        correlationId: emailId === '-' ? `import:${item.origin}` : emailId,
        eventType: IMPORT_AUDIT_EVENTS.failed,
        errorClass: 'transient',
        message: `${item.origin}: ${reason}`,
        details: { origin: item.origin },
      })
      .catch(() => undefined);
    return { outcome: 'error', line: line(emailId, `failed: ${reason}`) };
  }
}
