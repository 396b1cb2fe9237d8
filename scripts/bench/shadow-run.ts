/**
 * A shadow run simulated from a public archive: the customer mails and the team's replies of a
 * window of it are delivered in date order — customers' mail into the inbox, the team's replies
 * into the Sent folder, as their own mail client would file them — on the real stack (Temporal dev
 * server, MariaDB, Dovecot with IMAP IDLE, an in-process worker; the offline drafter, no model),
 * the mailbox in shadow mode. Prints the shadow report, how many drafts stood down because a
 * person answered, and the time from a reply's APPEND to Sent to its mail's withdrawal (p50/p95).
 *
 *   node --import tsx scripts/bench/shadow-run.ts ARCHIVE.mbox --team ADDRESS [--team …]
 *     [--from 2024-09-01] [--days 14] [--hour-ms 1000] [--max-gap-ms 15000]
 *
 * Time is compressed: an hour of the archive is `--hour-ms` of delivery, gaps at most
 * `--max-gap-ms`. Each message gets a fresh Date (its delivery time), so the stand-down latency is
 * measured from the moment the reply reached Sent.
 */
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { installSchedules, triggerPoll } from '../../src/operations/schedules';
import { installWatchers } from '../../src/mailboxes/watchers';
import { createEmailWorker } from '../../workers/email-worker';
import { readArchiveMails } from '../../src/replay/replay-archive';
import type { ArchiveMail } from '../../src/replay/replay-pairing';
import { formatShadowReport, shadowReport } from '../../src/shadow/index.adapters';
import { percentile } from '../../src/shadow/shadow-report';
import { withImap } from '../../test/support/imap-session';
import { MAILBOX_PASSWORD, MAILBOX_USER, startStack } from '../../test/support/stack';
import { workflowBundle } from '../../test/support/workflow-bundle';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    team: { type: 'string', multiple: true },
    from: { type: 'string', default: '2024-09-01' },
    days: { type: 'string', default: '14' },
    'hour-ms': { type: 'string', default: '1000' },
    'max-gap-ms': { type: 'string', default: '15000' },
  },
});
const archive = positionals[0];
if (!archive || !values.team?.length) throw new Error('usage: shadow-run.ts ARCHIVE --team ADDRESS [--team …] [--from DATE] [--days N]');
const team = new Set(values.team.map((t) => t.toLowerCase()));
const from = new Date(`${values.from}T00:00:00Z`);
const until = new Date(from.getTime() + Number(values.days) * 86_400_000);
const hourMs = Number(values['hour-ms']);
const maxGapMs = Number(values['max-gap-ms']);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => console.log(`shadow-run: ${line}`);

/** One message as a mail client writes it, dated now; the archive's own headers beyond these are left out. */
function rfc822(m: ArchiveMail, to: string): string {
  const header = (name: string, value: string | null | undefined) => (value ? [`${name}: ${value.replace(/[\r\n]+/g, ' ')}`] : []);
  return [
    ...header('From', m.from.name ? `"${m.from.name.replace(/"/g, '')}" <${m.from.address}>` : m.from.address),
    ...header('To', to),
    ...header('Subject', m.subject),
    ...header('Message-ID', m.messageId),
    ...header('In-Reply-To', m.inReplyTo),
    ...header('References', m.references.join(' ')),
    `Date: ${new Date().toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    m.text.replace(/\r?\n/g, '\r\n'),
    '',
  ].join('\r\n');
}

async function main(): Promise<void> {
  const read = await readArchiveMails(archive!, 25 * 1024 * 1024);
  const window = read.mails.filter((m) => m.date >= from && m.date < until).sort((a, b) => a.date.getTime() - b.date.getTime());
  const byId = new Map(window.filter((m) => m.messageId).map((m) => [m.messageId!, m]));
  const isTeam = (m: ArchiveMail) => team.has(m.from.address.toLowerCase());
  const customers = window.filter((m) => !isTeam(m));
  const replies = window.filter(isTeam);
  const answering = replies.filter((r) => r.inReplyTo && byId.has(r.inReplyTo) && !isTeam(byId.get(r.inReplyTo)!));
  log(
    `${read.read} messages read; window ${values.from} + ${values.days} days: ${customers.length} customer mails, ${replies.length} team replies (${answering.length} answer a customer mail of the window)`,
  );

  const stack = await startStack({ env: { LLM_BASE_URL: '', IMAP_POLL_INTERVAL_SECONDS: '3600' }, keepTraffic: false });
  const config = { ...stack.config, mailboxes: stack.config.mailboxes.map((m) => ({ ...m, mode: 'shadow' as const })) };
  const worker = await createEmailWorker(config, { workflowBundle: await workflowBundle() });
  const running = worker.run();
  const client = new Client({ connection: await Connection.connect({ address: config.temporal.address }) });
  const imap = <T>(fn: Parameters<typeof withImap<T>>[1]) =>
    withImap({ host: stack.dovecot.host, port: stack.dovecot.port, user: MAILBOX_USER, password: MAILBOX_PASSWORD }, fn);
  try {
    await imap((c) => c.mailboxCreate('Sent').then(() => undefined));
    await installSchedules(client, config);
    await installWatchers(client, config);
    await triggerPoll(client, config);
    await sleep(5_000); // the first poll connects the inbox and Sent: what is there is history
    const appendedAt = new Map<string, number>();
    let last = window[0]?.date.getTime() ?? 0;
    const started = Date.now();
    for (const m of window) {
      await sleep(Math.min(maxGapMs, Math.max(0, ((m.date.getTime() - last) / 3_600_000) * hourMs)));
      last = m.date.getTime();
      if (isTeam(m)) {
        const answered = m.inReplyTo ? byId.get(m.inReplyTo) : undefined;
        await imap((c) => c.append('Sent', rfc822(m, answered?.from.address ?? 'r-help@list.example')));
        if (m.messageId) appendedAt.set(m.messageId, Date.now());
      } else {
        await imap((c) => c.append('INBOX', rfc822(m, MAILBOX_USER)));
      }
    }
    log(`delivered ${window.length} messages in ${((Date.now() - started) / 1000).toFixed(0)} s; letting the pipeline settle`);
    await settle(stack.db.pool);
    const statuses = (await stack.db.pool.query('SELECT status, COUNT(*) AS n FROM emails GROUP BY status ORDER BY status')) as Array<{
      status: string;
      n: bigint;
    }>;
    log(`emails by status: ${statuses.map((s) => `${s.status} ${Number(s.n)}`).join(', ')}`);
    const stood = (await stack.db.pool.query(
      `SELECT e.id, e.status_changed_at AS at, r.message_id, (SELECT COUNT(*) FROM drafts d WHERE d.email_id = e.id) AS drafts
         FROM emails e JOIN outside_answers a ON a.email_id = e.id JOIN outside_replies r ON r.mailbox_id = a.mailbox_id AND r.message_key = a.message_key
        WHERE e.status = 'answered_elsewhere'`,
    )) as Array<{ id: string; at: Date; message_id: string; drafts: bigint }>;
    const latency = new Map<string, number>();
    for (const s of stood) {
      const t = appendedAt.get(s.message_id);
      if (t !== undefined) latency.set(s.id, Math.min(latency.get(s.id) ?? Infinity, (s.at.getTime() - t) / 1000));
    }
    const sorted = [...latency.values()].sort((a, b) => a - b);
    const withDraft = new Set(stood.filter((s) => Number(s.drafts) > 0).map((s) => s.id)).size;
    log(
      `stood down for a person's answer: ${new Set(stood.map((s) => s.id)).size} mails (${withDraft} with a draft withdrawn, the rest answered before their draft); ` +
        `from the reply's APPEND to Sent to the withdrawal: p50 ${percentile(sorted, 0.5)?.toFixed(2)} s, p95 ${percentile(sorted, 0.95)?.toFixed(2)} s, max ${sorted.at(-1)?.toFixed(2)} s (n=${sorted.length})`,
    );
    console.log(formatShadowReport(await shadowReport(config, {})));
  } finally {
    await worker.shutdown();
    await running.catch(() => undefined);
    await client.connection.close();
    await stack.stop();
  }
}

/** Waits until nothing is in intake and nothing changed for 10 s (at most 3 minutes). */
async function settle(pool: { query(sql: string): Promise<unknown> }): Promise<void> {
  const deadline = Date.now() + 180_000;
  let previous = '';
  let quietSince = Date.now();
  while (Date.now() < deadline) {
    const rows = (await pool.query('SELECT status, COUNT(*) AS n FROM emails GROUP BY status ORDER BY status')) as Array<{
      status: string;
      n: bigint;
    }>;
    const now = rows.map((r) => `${r.status}:${Number(r.n)}`).join(',');
    if (now !== previous) {
      previous = now;
      quietSince = Date.now();
    }
    const busy = rows.some((r) => ['fetched', 'parsed', 'indexed', 'partially_indexed', 'drafted'].includes(r.status));
    if (!busy && Date.now() - quietSince > 10_000) return;
    await sleep(1_000);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
