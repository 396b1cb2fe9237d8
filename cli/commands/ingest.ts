import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { parseRawEmail } from '../../adapters/mail-parser';
import { createMariaDbAuditLog } from '../../adapters/mariadb/audit-log';
import { createMariaDbMessageStore } from '../../adapters/mariadb/message-store';
import { createTemporalStarter, starterLimits } from '../../adapters/temporal-starter';
import type { Config } from '../../lib/config';
import { errorMessage } from '../../lib/errors';
import { DEFAULT_MAILBOX_ID } from '../../lib/mailbox-registry';
import { effectivePriority } from '../../lib/priority-rules';
import { emailDisplay } from '../../lib/workflow-summary';
import { CliError, connectDatabase, connectTemporal } from '../context';

const HEAD_BYTES = 64 * 1024;

function emlFiles(target: string): string[] {
  let st;
  try {
    st = statSync(target);
  } catch {
    throw new CliError(`no such file or directory: ${target}`, 2);
  }
  if (st.isFile()) return [target];
  const files = readdirSync(target)
    .filter((f) => f.toLowerCase().endsWith('.eml'))
    .sort()
    .map((f) => path.join(target, f));
  if (files.length === 0) throw new CliError(`no .eml files in ${target}`, 2);
  return files;
}

function headerBlock(head: Buffer): string {
  return (
    head
      .subarray(0, HEAD_BYTES)
      .toString('latin1')
      .split(/\r?\n\r?\n/)[0] ?? ''
  );
}

/** The id of an imported file: its Message-ID if it has one, else its bytes. */
export function fileEmailId(raw: Buffer): string {
  const messageId = /^message-id:\s*(<[^>\r\n]+>)/im.exec(headerBlock(raw))?.[1];
  return `email-file-${createHash('sha256')
    .update(messageId ?? raw)
    .digest('hex')
    .slice(0, 32)}`;
}

/** Same rule for a file too large to read whole: without a Message-ID, its head and size name it. */
function oversizedFileId(head: Buffer, size: number): string {
  if (/^message-id:\s*<[^>\r\n]+>/im.test(headerBlock(head))) return fileEmailId(head);
  return `email-file-${createHash('sha256').update(head).update(`\n${size}`).digest('hex').slice(0, 32)}`;
}

function readHead(file: string): Buffer {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    return buf.subarray(0, readSync(fd, buf, 0, HEAD_BYTES, 0));
  } finally {
    closeSync(fd);
  }
}

export interface IngestReport {
  /** One line per file: `<email id or ->\t<outcome>\t<file>`. */
  lines: string[];
  summary: string;
  /** Files that were not taken into the pipeline as they are (unreadable, refused, too large). */
  failed: number;
}

/**
 * Stores each file's bytes in MariaDB and starts its workflow. A bad file does not stop the
 * rest: each gets its own outcome line. A file above MAX_MESSAGE_BYTES is recorded (not stored)
 * and its workflow started, which ends it `failed` with reason `too_large`.
 */
export async function ingest(config: Config, target: string, opts: { history: boolean; mailboxId?: string }): Promise<IngestReport> {
  // The mailbox the files count as received in: its priority rules now, its identity for the reply.
  const mailboxId = opts.mailboxId ?? DEFAULT_MAILBOX_ID;
  const entry = config.mailboxes.find((m) => m.id === mailboxId);
  if (!entry) {
    throw new CliError(`unknown mailbox "${mailboxId}" (known: ${config.mailboxes.map((m) => m.id).join(', ') || 'none'})`, 2);
  }
  const files = emlFiles(target);
  const pool = await connectDatabase(config, { storesMail: true });
  const temporal = await connectTemporal(config).catch(async (err: unknown) => {
    await pool.end();
    throw err;
  });
  const max = config.imap.maxMessageBytes;
  const counts = { started: 0, known: 0, tooLarge: 0, failed: 0 };
  try {
    const store = createMariaDbMessageStore(pool);
    const audit = createMariaDbAuditLog(pool);
    const starter = createTemporalStarter(temporal.client, config.temporal.taskQueue, starterLimits(config));
    const lines: string[] = [];
    for (const file of files) {
      let emailId = '-';
      try {
        const size = statSync(file).size;
        if (size > max) {
          const head = readHead(file);
          emailId = oversizedFileId(head, size);
          const known = await parseRawEmail(
            Buffer.concat([Buffer.from(headerBlock(head), 'latin1'), Buffer.from('\r\n\r\n')]),
            emailId,
          ).catch(() => null);
          await store.saveOversized({
            emailId,
            source: 'file',
            mailboxId,
            size,
            subject: known?.subject ?? null,
            from: known?.from?.address ?? null,
            historyOnly: opts.history,
          });
          await audit.record({
            emailId,
            correlationId: emailId,
            eventType: 'too_large',
            errorClass: 'permanent',
            message: `file ${path.basename(file)} has ${size} bytes, above the limit of ${max} (MAX_MESSAGE_BYTES); not stored`,
            details: { size, limit: max },
            // The fetch step writes the same event under this key: one row.
            eventKey: `${emailId}:too_large`,
          });
          const outcome = await starter.startEmail(
            { emailId, source: { kind: 'stored', mailboxId }, historyOnly: opts.history },
            'normal',
            emailDisplay({
              mailboxId,
              subject: known?.subject ?? null,
              fromName: known?.from?.name,
              fromAddress: known?.from?.address,
              priority: 'normal',
              mailbox: 'file',
              file: path.basename(file),
              messageId: known?.messageId,
              inReplyTo: known?.inReplyTo,
            }),
          );
          counts.tooLarge++;
          lines.push(
            `${emailId}\ttoo large: ${size} bytes, above MAX_MESSAGE_BYTES (${max})${outcome === 'exists' ? ', already known' : ''}\t${file}`,
          );
          continue;
        }
        const raw = readFileSync(file);
        emailId = fileEmailId(raw);
        // Same intake rule as the poll: headers and PRIORITY_RULES decide the priority up front.
        const head = await parseRawEmail(raw, emailId).catch(() => null);
        const priority = head
          ? effectivePriority(head.priority, { from: head.from?.address ?? null, subject: head.subject }, entry.priorityRules)
          : 'normal';
        await store.saveRaw({ emailId, source: 'file', mailboxId, raw, historyOnly: opts.history });
        const outcome = await starter.startEmail(
          { emailId, source: { kind: 'stored', mailboxId }, historyOnly: opts.history, priority },
          priority,
          emailDisplay({
            mailboxId,
            subject: head?.subject ?? null,
            fromName: head?.from?.name,
            fromAddress: head?.from?.address,
            priority,
            mailbox: 'file',
            file: path.basename(file),
            messageId: head?.messageId,
            inReplyTo: head?.inReplyTo,
          }),
        );
        if (outcome === 'started') counts.started++;
        else counts.known++;
        lines.push(`${emailId}\t${outcome === 'started' ? 'started' : 'already known'}\t${file}`);
      } catch (err) {
        counts.failed++;
        lines.push(`${emailId}\tfailed: ${errorMessage(err).split('\n')[0]}\t${file}`);
      }
    }
    const summary =
      `${files.length} file(s): ${counts.started} started, ${counts.known} already known, ` +
      `${counts.tooLarge} too large, ${counts.failed} failed`;
    return { lines, summary, failed: counts.failed + counts.tooLarge };
  } finally {
    await temporal.close();
    await pool.end();
  }
}
