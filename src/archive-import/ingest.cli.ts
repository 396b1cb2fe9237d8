import { createMariaDbAuditLog } from '../platform/audit-log.mariadb';
import { createMariaDbMessageStore, createTemporalStarter, starterLimits } from '../email/index.adapters';
import type { Config } from '../platform/config';
import { chooseMailbox } from '../mailboxes';
import { planArchive, readArchive } from './archive-sources';
import { CliError, connectDatabase, connectTemporal } from '../platform/cli-context';
import { importMessage, type ImportContext, type ImportOutcome } from './import-message';
import { createIngestProgress } from './ingest-progress';
import { text, type CliCommand } from '../platform/cli-command';

export { fileEmailId } from './import-message';

/**
 * Messages in flight at once. Each costs a few MariaDB round trips and one Temporal start, mostly
 * waiting; a few at once overlap those waits, while memory stays bounded by that many messages of
 * at most MAX_MESSAGE_BYTES each. Archive order is kept for the lines and for the starts within
 * a margin of this many messages.
 */
const IN_FLIGHT = 4;
/** Without a terminal: a progress line every this many messages. */
const PROGRESS_EVERY = 1000;

export interface IngestReport {
  /** One line per message: `<email id or ->\t<outcome>\t<file, or mbox file#n>` (empty when `onLine` took them). */
  lines: string[];
  summary: string;
  /** Messages that were not taken into the pipeline as they are (unreadable, refused, too large, unparseable). */
  failed: number;
}

export interface IngestOptions {
  history: boolean;
  mailboxId?: string;
  /** Each message's line as soon as it is decided, in archive order; without it they are collected. */
  onLine?: (line: string) => void;
  /** Draw a progress bar (stdout is a terminal); otherwise progress lines go to `onProgress`. */
  tty?: boolean;
  onProgress?: (line: string) => void;
}

/**
 * Stores each message of the archive (.eml files, mbox files, Maildir folders) in MariaDB and
 * starts its workflow. A bad message does not stop the rest: each gets its own outcome line and,
 * when it is not taken, an audit row. A re-run skips what is in already (same id: Message-ID, or
 * the bytes), so an import that was killed half-way is finished by running it again.
 */
export async function ingest(config: Config, target: string, opts: IngestOptions): Promise<IngestReport> {
  // The mailbox the files count as received in: its priority rules now, its identity for the reply.
  const choice = chooseMailbox(config.mailboxes, opts.mailboxId);
  if ('problem' in choice) throw new CliError(choice.problem, 2);
  const { mailbox } = choice;
  const plan = planArchive(target);
  const pool = await connectDatabase(config, { storesMail: true, connections: IN_FLIGHT });
  const temporal = await connectTemporal(config).catch(async (err: unknown) => {
    await pool.end();
    throw err;
  });
  const counts: Record<ImportOutcome, number> = { started: 0, known: 0, tooLarge: 0, unparseable: 0, error: 0 };
  const lines: string[] = [];
  const emit = opts.onLine ?? ((l: string) => lines.push(l));
  const hasMbox = plan.sources.some((s) => s.kind === 'mbox');
  const progress = createIngestProgress({
    tty: opts.tty === true,
    unit: hasMbox ? 'bytes' : 'files',
    total: hasMbox ? plan.totalBytes : plan.sources.length,
    every: PROGRESS_EVERY,
    write: opts.onProgress ?? (() => undefined),
  });
  const ctx: ImportContext = {
    store: createMariaDbMessageStore(pool),
    audit: createMariaDbAuditLog(pool),
    starter: createTemporalStarter(temporal.client, config.temporal.taskQueue, starterLimits(config)),
    mailbox,
    history: opts.history,
    maxBytes: config.imap.maxMessageBytes,
  };
  let read = 0;
  try {
    // Lines come out in archive order: results wait for the ones before them (at most IN_FLIGHT).
    const done = new Map<number, { outcome: ImportOutcome; line: string }>();
    let next = 0;
    const flush = () => {
      for (let r = done.get(next); r; r = done.get(next)) {
        done.delete(next++);
        counts[r.outcome]++;
        // On a terminal the bar stands in for the routine lines; what went wrong is still shown.
        if (opts.tty && opts.onLine && (r.outcome === 'started' || r.outcome === 'known')) continue;
        if (opts.tty && opts.onLine) progress.log(r.line);
        else emit(r.line);
      }
    };
    const inFlight = new Set<Promise<void>>();
    const items = readArchive(plan, ctx.maxBytes, (bytes, files) => progress.advance({ bytes, files }));
    for await (const item of items) {
      const seq = read++;
      const job = importMessage(ctx, item).then((r) => {
        done.set(seq, r);
        flush();
        progress.advance({ messages: next });
        inFlight.delete(job);
      });
      inFlight.add(job);
      if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  } finally {
    progress.stop();
    await temporal.close();
    await pool.end();
  }
  const sources = plan.sources.length;
  const summary =
    `${read} message(s) read; ${sources} file(s): ${counts.started} started, ${counts.known} already known, ` +
    `${counts.tooLarge} too large, ${counts.error} failed, ${counts.unparseable} unparseable` +
    (plan.ignored ? `; ${plan.ignored} other file(s) ignored` : '');
  return { lines, summary, failed: counts.error + counts.tooLarge + counts.unparseable };
}

export const ingestCommand: CliCommand<IngestReport> = {
  name: 'ingest',
  usage: `ingest <file|dir> [--history] [--mailbox ID]
                                        import .eml files, mbox files and Maildir folders (as received in
                                        mailbox ID; without it the registry's only mailbox, or "default";
                                        --history: index only, no drafts);
                                        one line per message (id, outcome, origin), a summary on stderr,
                                        exit 1 if any was not taken; a re-run skips what is in already`,
  options: { history: { type: 'boolean', default: false }, mailbox: { type: 'string' } },
  async run(ctx, { positionals, values }) {
    const mailboxId = text(values, 'mailbox');
    const report = await ingest(ctx.config(), ctx.one(positionals, 'file or directory'), {
      history: values.history === true,
      ...(mailboxId !== undefined ? { mailboxId } : {}),
      onLine: (line) => console.log(line),
      tty: process.stdout.isTTY === true,
      onProgress: (line) => console.error(line),
    });
    // The summary goes to stderr: stdout stays one line per file for scripts.
    console.error(`email-rag ingest: ${report.summary}`);
    return report;
  },
  exitCode: (report) => (report.failed > 0 ? 1 : undefined),
};
