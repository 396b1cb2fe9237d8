/**
 * Chaos for the send path: N emails on real servers are drafted and approved, and the worker
 * process is killed with SIGKILL K times while replies are in the SMTP hand-over, then started
 * again. Prints the kills per SMTP phase (before / after the final dot of DATA), the copies the SMTP
 * server received, Message-IDs it received more than once, the `send_attempts` rows left
 * `in_doubt` (waiting for a person), those of them whose message never reached the server, and
 * the in-doubt rows per kill.
 *
 *   node --import tsx scripts/chaos-sends.ts [--emails N] [--kills K] [--latency MS] [--provider-files-sent]
 *
 * With --provider-files-sent the SMTP server files every message it takes over in the mailbox's
 * Sent folder before it answers (as Microsoft 365 and Gmail do) and the mailbox is registered with
 * `smtp.providerFilesSent`: a send in doubt is then looked up there. Also printed: the sends the
 * lookup resolved and Message-IDs the Sent folder holds more than once.
 *
 * Exit 1 when a reply arrived twice (or is twice in Sent), an email was lost (neither sent nor in doubt, or recorded as
 * sent without reaching the server), or a send is in doubt whose attempt stopped before the final dot.
 */
import * as path from 'node:path';
import { Client, Connection, WorkflowUpdateStage } from '@temporalio/client';
import { loadConfig } from '../src/config';
import { writeFileSync } from 'node:fs';
import type { ImapFlow } from 'imapflow';
import { SYSTEM_ACTORS } from '../src/email/email.contract';
import { openImap } from '../test/support/imap-session';
import { MAILBOX_PASSWORD, MAILBOX_USER, sampleEmail, startStack, type TestStack } from '../test/support/stack';
import { waitFor } from '../test/support/wait';
import { approveUpdate, stateQuery, type WaitingFor } from '../src/email/email.workflow';
import { attemptKey, readSends } from './chaos/send-ledger-view';
import { appendMessages, startImapEmail } from '../test/support/services/imap-intake';
import { startSwitchableSmtp, type SwitchableSmtp } from '../test/support/services/switchable-smtp';
import { startWorkerProcess, type WorkerProcess } from '../test/support/services/worker-process';
import { option } from './chaos/options';

interface Kill {
  n: number;
  moment: 'data-start' | 'data-end';
  /** SMTP transactions between DATA and their answer when the worker died. */
  inFlight: number;
  /** Send attempts this kill interrupted (draft id and attempt token): the candidates for "in doubt". */
  interrupted: Set<string>;
  /** The SMTP phases those attempts had recorded when the worker died. */
  phases: Map<string, number>;
}

function phaseText(phases: Map<string, number>): string {
  return phases.size === 0 ? 'none' : [...phases].map(([phase, n]) => `${phase} ${n}`).join(', ');
}

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

async function main(): Promise<void> {
  const emails = option('emails', 200);
  const plannedKills = option('kills', 8);
  const latencyMs = option('latency', 300);
  const providerFiles = process.argv.includes('--provider-files-sent');
  const started = Date.now();
  const say = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);

  let smtp: SwitchableSmtp | undefined;
  let stack: TestStack | undefined;
  let worker: WorkerProcess | undefined;
  let connection: Connection | undefined;
  let filer: ImapFlow | undefined;
  try {
    // The provider's own filing: one IMAP session, one APPEND at a time, before the answer to DATA.
    let filing: Promise<unknown> = Promise.resolve();
    const fileAccepted = (raw: Buffer): Promise<void> => {
      const next = filing.then(async () => {
        await filer!.append('Sent', raw, ['\\Seen']);
      });
      filing = next.catch(() => undefined);
      return next;
    };
    smtp = await startSwitchableSmtp(providerFiles ? { fileAccepted } : {});
    // The answer to DATA comes this long after the final dot: the window a kill can land in.
    smtp.setLatency(latencyMs);
    stack = await startStack({
      env: { SMTP_HOST: smtp.host, SMTP_PORT: String(smtp.port), TEMPORAL_TASK_QUEUE: 'email-rag', LLM_TIMEOUT_MS: '30000' },
    });
    const env = stack.env;
    if (providerFiles) {
      const login = { host: stack.dovecot.host, port: stack.dovecot.port, user: MAILBOX_USER, password: MAILBOX_PASSWORD };
      filer = await openImap(login);
      await filer.mailboxCreate('Sent').catch(() => undefined);
      const registry = path.join(stack.dir, 'mailboxes.yaml');
      writeFileSync(
        registry,
        [
          'version: 1',
          'mailboxes:',
          '  - id: default',
          `    imap: { user: ${MAILBOX_USER}, password: { env: IMAP_PASSWORD } }`,
          `    smtp: { from: "${env.SMTP_FROM}", providerFilesSent: true }`,
          '',
        ].join('\n'),
      );
      env.MAILBOXES_FILE = registry;
    }
    const config = loadConfig(env);
    const workerLog = path.join(stack.dir, 'worker.log');
    worker = await startWorkerProcess(env, workerLog);
    connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS! });
    const client = new Client({ connection, namespace: env.TEMPORAL_NAMESPACE });
    const pool = stack.db.pool;
    say(
      `servers and worker up; ${emails} emails, ${plannedKills} kills, SMTP answers ${latencyMs} ms after the final dot` +
        `${providerFiles ? '; the provider files sent mail (smtp.providerFilesSent)' : ''}`,
    );

    const raws = Array.from({ length: emails }, (_, i) =>
      sampleEmail({
        from: `Kunde ${i} <kunde-${i}@customer.example>`,
        messageId: `<chaos-${i}@customer.example>`,
        subject: `Anfrage ${i}`,
      }),
    );
    const appended = await appendMessages(config, raws);
    const ids: string[] = [];
    await inBatches(appended, 20, async (m) => void ids.push(await startImapEmail(client, config, m)));
    let shown = -1;
    await waitFor(
      'every email drafted',
      async () => {
        const [row] = (await pool.query(
          `SELECT COUNT(*) AS n FROM emails WHERE status IN ('awaiting_approval', 'manual_review')`,
        )) as Array<{
          n: number;
        }>;
        const n = Number(row?.n ?? 0);
        if (n !== shown && (n === emails || n - shown >= Math.max(1, Math.floor(emails / 10)))) say(`${(shown = n)}/${emails} drafted`);
        return n === emails;
      },
      30 * 60_000,
      1_000,
    );

    // Kill plan: after every N/(K+1) copies, at the next DATA start (nothing handed over yet) or
    // the next final dot (handed over, answer pending), alternately.
    const step = Math.max(1, Math.floor(emails / (plannedKills + 1)));
    const kills: Kill[] = [];
    let inFlight = 0;
    let dataStarts = 0;
    let killing: Promise<void> | undefined;
    const killNow = (moment: Kill['moment']): void => {
      const kill: Kill = { n: kills.length + 1, moment, inFlight, interrupted: new Set(), phases: new Map() };
      kills.push(kill);
      killing = (async () => {
        await worker!.kill();
        // An attempt a kill interrupts stays so until its retry: it belongs to the first kill that saw it.
        const { rows } = await readSends(pool);
        for (const r of rows.filter((x) => x.status === 'sending')) {
          const key = attemptKey(r);
          if (kills.some((k) => k.interrupted.has(key))) continue;
          kill.interrupted.add(key);
          kill.phases.set(r.phase ?? 'none', (kill.phases.get(r.phase ?? 'none') ?? 0) + 1);
        }
        say(`kill ${kill.n} at ${moment}: ${kill.inFlight} SMTP transaction(s) in flight, rows left mid-send: ${phaseText(kill.phases)}`);
        worker = await startWorkerProcess(env, workerLog);
        inFlight = 0;
        killing = undefined;
      })();
    };
    const due = (): Kill['moment'] | undefined =>
      !killing && kills.length < plannedKills && smtp!.received() >= (kills.length + 1) * step
        ? kills.length % 2 === 0
          ? 'data-end'
          : 'data-start'
        : undefined;
    smtp.events.on('data-start', () => {
      dataStarts += 1;
      inFlight += 1;
      if (due() === 'data-start') killNow('data-start');
    });
    smtp.events.on('data-end', () => {
      if (due() === 'data-end') killNow('data-end');
      setTimeout(() => (inFlight = Math.max(0, inFlight - 1)), latencyMs);
    });

    // Each approval names the draft the `state` query showed, as a reviewer's does. The drafts are
    // read before the first approval (no kill yet); the approvals meet kills, and a decision
    // retried under the same update id is applied once.
    const waiting = new Map<string, WaitingFor>();
    await inBatches(ids, 20, async (id) => {
      const w = (await client.workflow.getHandle(id).query(stateQuery)).waitingFor;
      if (!w || (w.kind !== 'approval' && w.kind !== 'manual_review')) throw new Error(`${id} waits for no approval: ${JSON.stringify(w)}`);
      waiting.set(id, w);
    });
    await inBatches(ids, 20, async (id) => {
      const w = waiting.get(id)!;
      const body = w.kind === 'manual_review' ? { body: 'Guten Tag,\n\nwir kümmern uns darum.\n\nIhr Support-Team' } : {};
      await waitFor(
        `approval of ${id} accepted`,
        async () => {
          await client.workflow.getHandle(id).startUpdate(approveUpdate, {
            args: [{ draftId: w.draftId, by: 'chaos', ...body }],
            updateId: `chaos-approve-${w.draftId}`,
            waitForStage: WorkflowUpdateStage.ACCEPTED,
          });
          return true;
        },
        10 * 60_000,
        2_000,
      );
    });
    say(`all ${emails} approved`);

    // Settled: every email sent or waiting in doubt, and no kill or restart under way.
    const outcome = await waitFor(
      'every send sent or in doubt',
      async () => {
        if (killing) return undefined;
        const view = await readSends(pool);
        const sent = view.rows.filter((r) => r.status === 'sent').length;
        // In doubt for good once the step refused it (audited `send_in_doubt`): with the Sent
        // lookup a row is `in_doubt` for the few seconds the lookup takes before it may turn `sent`.
        const refused = (await pool.query(`SELECT DISTINCT email_id FROM audit_log WHERE event_type = 'send_in_doubt'`)) as Array<{
          email_id: string;
        }>;
        const waiting = new Set(refused.map((r) => r.email_id));
        const settledDoubts = view.rows.filter((r) => view.inDoubt.has(r.draftId) && waiting.has(r.emailId)).length;
        return sent + settledDoubts >= emails ? view : undefined;
      },
      30 * 60_000,
      2_000,
    ).catch(async (err: unknown) => {
      say(`not settled: ${(err as Error).message}`);
      return readSends(pool);
    });

    say('settled');
    // Sends in doubt the mailbox check settled, lookups that found nothing, and copies the Sent folder holds more than once.
    const count = async (sql: string, params: unknown[]) => Number(((await pool.query(sql, params)) as Array<{ n: number }>)[0]?.n ?? 0);
    const resolved = await count('SELECT COUNT(*) AS n FROM send_attempts WHERE resolved_by = ?', [SYSTEM_ACTORS.mailboxCheck]);
    const notFound = await count('SELECT COUNT(DISTINCT email_id) AS n FROM audit_log WHERE event_type = ?', ['send_not_found_in_sent']);
    const inSent = new Map<string, number>();
    if (filer) {
      const box = await filer.mailboxOpen('Sent');
      if (box.exists > 0)
        for await (const msg of filer.fetch('1:*', { envelope: true })) {
          const id = msg.envelope?.messageId ?? '';
          inSent.set(id, (inSent.get(id) ?? 0) + 1);
        }
    }
    const sentDuplicates = [...inSent].filter(([, n]) => n > 1);
    const copies = smtp.copies;
    const duplicates = [...copies].filter(([, n]) => n > 1);
    const sentRows = outcome.rows.filter((r) => r.status === 'sent');
    const byDraft = new Map(outcome.rows.map((r) => [r.draftId, r]));
    const delivered = (draftId: string) => (copies.get(byDraft.get(draftId)?.messageId ?? '') ?? 0) > 0;
    const doubtful = [...outcome.inDoubt];
    const doubtNotDelivered = doubtful.filter((d) => !delivered(d));
    // Only an attempt that reached the final dot may be in doubt; anything earlier is a safe retry.
    const doubtBeforeDot = doubtful.filter((d) => byDraft.get(d)?.phase !== 'data_end');
    // Recorded as sent, but the listener never read its final dot: a reply that went nowhere.
    const sentNotReceived = sentRows.filter((r) => !delivered(r.draftId));
    const lost = emails - sentRows.length - doubtful.length + sentNotReceived.length;
    const killsAt = (m: Kill['moment']) => kills.filter((k) => k.moment === m).length;
    const sample = (ids: string[]) => (ids.length ? ` (${ids.slice(0, 5).join(', ')})` : '');
    const lines: Array<[string, string]> = [
      ['emails', String(emails)],
      ['kills', `${kills.length} of ${plannedKills} planned`],
      ['  before the final dot', `${killsAt('data-start')} (at DATA start: nothing handed over)`],
      ['  after the final dot', `${killsAt('data-end')} (answer pending: handed over)`],
      ['sends', `${dataStarts} SMTP DATA started, ${sentRows.length} send_attempts rows sent`],
      ['copies received', `${smtp.received()} (${copies.size} distinct Message-IDs)`],
      ['duplicates', `${duplicates.length}${sample(duplicates.map(([id, n]) => `${id} x${n}`))}`],
      ["in doubt (status 'in_doubt')", String(doubtful.length)],
      ['  stopped before the final dot', `${doubtBeforeDot.length}${sample(doubtBeforeDot)}`],
      ['  not at the listener', `${doubtNotDelivered.length}${sample(doubtNotDelivered)}`],
      ['sent, not at the listener', `${sentNotReceived.length}${sample(sentNotReceived.map((r) => r.draftId))}`],
      ['lost', String(lost)],
    ];
    if (providerFiles) {
      lines.push(
        ['resolved by the Sent lookup', `${resolved} (sent; resolved_by ${SYSTEM_ACTORS.mailboxCheck})`],
        ['  lookups that found nothing', `${notFound} email(s)`],
        ['Sent folder', `${[...inSent.values()].reduce((a, b) => a + b, 0)} copies, ${inSent.size} distinct Message-IDs`],
        ['  duplicates in Sent', `${sentDuplicates.length}${sample(sentDuplicates.map(([id, n]) => `${id} x${n}`))}`],
      );
    }
    console.log('');
    for (const [label, value] of lines) console.log(`${`${label}:`.padEnd(32)} ${value}`);
    for (const k of kills) {
      const mine = outcome.rows.filter((r) => r.status === 'in_doubt' && k.interrupted.has(attemptKey(r))).map((r) => r.draftId);
      console.log(
        `  kill ${k.n} (${k.moment === 'data-end' ? 'after the final dot' : 'before the final dot'}): ${k.inFlight} in flight, ` +
          `interrupted ${phaseText(k.phases)}; ${mine.length} in doubt (${mine.filter(delivered).length} at the listener)`,
      );
    }
    // An attempt records data_end before it releases the final dot (so a crash after the dot is
    // never taken for a safe retry); a kill between that write and the dot reaching the server
    // leaves a row in doubt that was not delivered: the safe side, a person checks and forces.
    if (doubtNotDelivered.length > 0) {
      console.log(
        `NOTE: ${doubtNotDelivered.length} send(s) in doubt never reached the listener (the attempt had recorded data_end; its final dot never arrived)`,
      );
    }
    if (duplicates.length > 0 || sentDuplicates.length > 0 || lost > 0 || doubtBeforeDot.length > 0) process.exitCode = 1;
  } finally {
    await worker?.kill().catch(() => undefined);
    await filer?.logout().catch(() => undefined);
    await connection?.close().catch(() => undefined);
    await smtp?.stop().catch(() => undefined);
    await stack?.stop().catch(() => undefined);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exitCode = 1;
});
