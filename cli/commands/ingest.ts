import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { parseRawEmail } from '../../adapters/mail-parser';
import { createMariaDbMessageStore } from '../../adapters/mariadb/message-store';
import { createTemporalStarter } from '../../adapters/temporal-starter';
import type { Config } from '../../lib/config';
import { effectivePriority } from '../../lib/priority-rules';
import { CliError, connectDatabase, connectTemporal } from '../context';

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

/** The id of an imported file: its Message-ID if it has one, else its bytes. */
export function fileEmailId(raw: Buffer): string {
  const head =
    raw
      .subarray(0, 64 * 1024)
      .toString('latin1')
      .split(/\r?\n\r?\n/)[0] ?? '';
  const messageId = /^message-id:\s*(<[^>\r\n]+>)/im.exec(head)?.[1];
  return `email-file-${createHash('sha256')
    .update(messageId ?? raw)
    .digest('hex')
    .slice(0, 32)}`;
}

/** Stores each file's bytes in MariaDB and starts its workflow; returns one line per file. */
export async function ingest(config: Config, target: string, opts: { history: boolean }): Promise<string[]> {
  const files = emlFiles(target);
  const pool = await connectDatabase(config);
  const temporal = await connectTemporal(config).catch(async (err: unknown) => {
    await pool.end();
    throw err;
  });
  try {
    const store = createMariaDbMessageStore(pool);
    const starter = createTemporalStarter(temporal.client, config.temporal.taskQueue);
    const lines: string[] = [];
    for (const file of files) {
      const raw = readFileSync(file);
      if (raw.length > config.imap.maxMessageBytes) {
        lines.push(`skipped ${file}: ${raw.length} bytes is above MAX_MESSAGE_BYTES (${config.imap.maxMessageBytes})`);
        continue;
      }
      const emailId = fileEmailId(raw);
      // Same intake rule as the poll: headers and PRIORITY_RULES decide the priority up front.
      const head = await parseRawEmail(raw, emailId).catch(() => null);
      const priority = head
        ? effectivePriority(head.priority, { from: head.from?.address ?? null, subject: head.subject }, config.priorityRules)
        : 'normal';
      await store.saveRaw({ emailId, source: 'file', raw, historyOnly: opts.history });
      const outcome = await starter.startEmail({ emailId, source: { kind: 'stored' }, historyOnly: opts.history, priority }, priority);
      lines.push(`${emailId}\t${outcome === 'started' ? 'started' : 'already known'}\t${file}`);
    }
    return lines;
  } finally {
    await temporal.close();
    await pool.end();
  }
}
