import { parseArgs } from 'node:util';
import { userInfo } from 'node:os';
import { migrate } from '../platform/migrate.mariadb';
import { loadConfig, type Config } from '../config';
import { runWorker } from '../../workers/main';
import { ConfigError, errorMessage } from '../platform/errors';
import { answer } from '../drafting/answer.cli';
import { casesAnswer, casesList, casesShow, formatCase, formatCaseReply, formatCases } from '../cases/cases.cli';
import { autonomyStatus, autonomyStop, autonomySwitch, formatAutonomyStatus } from '../autonomy/autonomy.cli';
import { approve, markSent, redraft, reject, resend } from '../email/approval.cli';
import { dlqList, dlqRequeue, dlqShow, formatDeadLetter, formatDeadLetters } from '../operations/dead-letters.cli';
import { ingest } from '../archive-import/ingest.cli';
import { knowledgeSync } from '../retrieval/knowledge.cli';
import { checkEmbedder, formatEmbedderCheck } from '../retrieval/embedder.cli';
import { formatMetrics, metrics } from '../operations/metrics.cli';
import { formatGaps, formatQuality, quality, qualityGaps } from '../operations/quality.cli';
import { QUALITY_GROUPINGS, type QualityGrouping } from '../operations/draft-quality';
import { drafts, formatStatus, status } from '../operations/status.cli';
import { mailboxesAuthorize } from '../mailboxes/mailbox-authorize.cli';
import { formatMailboxChecks, formatMailboxList, mailboxesCheck, mailboxesList, mailboxesSetEnabled } from '../mailboxes/mailboxes.cli';
import {
  inboxUsersAdd,
  inboxUsersDisable,
  inboxUsersResetPassword,
  inboxUsersSignOut,
  inboxUsersUnlock,
  readPassword,
} from '../review-inbox/inbox-users.cli';
import { runInbox } from '../review-inbox/server';
import { registerSearchAttributes } from '../operations/search-attributes.temporal';
import { setNamespaceRetention } from '../platform/temporal-namespace';
import { runCodecServer } from '../operations/codec-server.cli';
import { auditAccess, formatAccess } from '../privacy/audit-access.cli';
import { formatErasure, privacyErase, privacyExport, privacyPurge } from '../privacy/privacy.cli';
import { CliError, connectTemporal } from '../platform/cli-context';
import { CLEANUP_SCHEDULE_ID, installSchedules, triggerPoll, triggerSchedule } from '../operations/schedules';
import { installWatchers } from '../mailboxes/watchers';

const USAGE = `usage: email-rag <command> [options]

commands:
  worker                                  run the worker (all workflows and activities)
  migrate                                 create the database and apply migrations
  schedules install                       install, update or remove schedules: one IMAP poll per enabled mailbox
                                          (created/updated/unchanged/removed per schedule)
  temporal setup [--retention-days N]     register the search attributes (EmailStatus, …) on the namespace;
                                          with --retention-days also set how long closed histories are kept
  codec-server                            decrypt payloads for the Web UI / temporal CLI (CODEC_PORT, CODEC_TOKEN)
  poll [--mailbox ID]                     run the IMAP poll schedule of one mailbox (default: every enabled one) once, now
  cleanup                                 run the stuck-processing cleanup once, now
  ingest <file|dir> [--history] [--mailbox ID]
                                          import .eml files, mbox files and Maildir folders (as received in
                                          mailbox ID, default "default"; --history: index only, no drafts);
                                          one line per message (id, outcome, origin), a summary on stderr,
                                          exit 1 if any was not taken; a re-run skips what is in already
  knowledge sync                          index new and changed files of KNOWLEDGE_DIR, remove deleted ones
  embedder [--json]                       does the embedder (EMBEDDER) answer: mode, model, where, dimensions;
                                          exit 1 if it does not
  status [--json]                         emails per status, queue rows per status, dead letters; per mailbox:
                                          emails per status, last successful poll and current poll failures
  mailboxes list [--json]                 the mailbox registry: accounts, folders, identities, secret references
                                          (never values), schedule state, last successful poll, last error
  mailboxes check [ID] [--json]           try IMAP login, folders, Sent folder and SMTP (EHLO, AUTH) of every
                                          enabled mailbox or of ID, sending nothing; exit 1 if any fails
  mailboxes authorize ID                  OAuth2 device-code sign-in for ID (delegated Microsoft 365, Google,
                                          OIDC): stores the refresh token in its { file } reference (0600)
  mailboxes disable|enable ID             set enabled: false|true of ID in MAILBOXES_FILE (comments kept);
                                          then schedules install
  metrics [--json] [--minutes N] [--urgent-deadline M]
                                          intake, time to draft, step runtimes and failures, backlog age, alerts
  quality [--since 30d] [--by category|mailbox|language|drafter|prompt|model] [--json]
                                          what became of the decided drafts: shares approved unchanged, lightly
                                          (< 40 % of words) or heavily edited, rejected, redrafted, written by a person
  quality --gaps [--since 30d] [--json]   knowledge gaps: mails whose draft found no source or was heavily edited
                                          or rejected, grouped by topic with the embedder
  drafts [--json]                         drafts waiting for approval
  dlq list [--json]                       dead letters: steps with no automatic retry left
  dlq show <id> [--json]                  payload reference, cause, retry history, correlation id
  dlq requeue <id> --by NAME              re-run a dead step after a fix
  approve <workflowId> [--draft N|ID] [--body-file F] [--by NAME]
                                          approve the draft you read (shown first); --draft pins it
  reject <workflowId> --reason R [--draft N|ID] [--by NAME]
  redraft <workflowId> [--reason R] [--by NAME]
                                          ask for a new draft
  resend <workflowId> [--force] [--by NAME]
                                          next send round now; --force only for a send in doubt,
                                          after checking the SMTP log: one more attempt
  mark-sent <workflowId> [--note N] [--by NAME]
                                          a send in doubt did arrive: record it as sent
  (a decision the workflow refuses exits 5 with its reason)
  answer <emailId> --by NAME              draft a reply to an email triage set aside (status ignored)
  cases list [--status open|waiting_for_customer|closed] [--mailbox ID] [--correspondent ADDR] [--json]
                                          cases: a correspondent's open work, newest first
  cases show CASE [--json]                a case: its mails (status, current draft) and its history
  cases answer CASE --by NAME [--body-file F]
                                          answer every mail of the case waiting for approval in one reply
                                          (the oldest one's draft, or F); exit 5 if refused
  autonomy status [--json]                earned autonomy: the switch, each mailbox category's record (reviewed,
                                          share approved unchanged) against its bar, and its state; pending
                                          automatic sends
  autonomy off|on --by NAME               switch every automatic send off (or on again); off by default
  autonomy stop <emailId> [--draft ID] --by NAME
                                          stop an automatic send: the draft waits for a person
  inbox                                   run the review inbox web app on INBOX_PORT (see docs/review-inbox.md)
  inbox users add NAME --role reviewer|operator
                                          add or update an inbox user; the password is read from stdin
  inbox users disable NAME                disable an inbox user (ends their open sessions)
  inbox users reset-password NAME         a new password (read from stdin); ends the user's sessions
  inbox users sign-out NAME               end the open review-inbox sessions of a user everywhere
  inbox users unlock NAME                 lift the sign-in delay or lock of a name
  audit access [--user NAME] [--email ID] [--since 7d] [--json]
                                          who opened which email in the inbox, who exported or erased what
  privacy export <address> [--out DIR] [--by NAME]
                                          everything held about the address as one zip (data.json + .eml files)
  privacy erase <address> --by NAME [--force] [--dry-run]
                                          erase their data in MariaDB, the indexes and Temporal; exit 5 if a send
                                          of theirs is running or in doubt (--force after checking it)
  privacy purge [--dry-run]               remove what RETENTION_* says has expired, in batches

configuration comes from the environment (TEMPORAL_ADDRESS, DATABASE_URL, IMAP_*, SMTP_*, LLM_*; see docs/configuration.md)`;

function defaultActor(): string {
  try {
    return process.env.EMAIL_RAG_USER || userInfo().username;
  } catch {
    return 'cli';
  }
}

function args(argv: string[], options: NonNullable<Parameters<typeof parseArgs>[0]>['options'] = {}) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new CliError(`${errorMessage(err)}\n${USAGE}`, 2);
  }
}

function one(positionals: string[], what: string): string {
  if (positionals.length !== 1 || !positionals[0]) throw new CliError(`expected exactly one ${what}\n${USAGE}`, 2);
  return positionals[0];
}

async function run(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const config = (needsImap = false): Config => loadConfig(process.env, { imap: needsImap });
  switch (command) {
    case 'worker': {
      args(rest);
      await runWorker(config(true));
      return;
    }
    case 'migrate': {
      args(rest);
      const result = await migrate(config().databaseUrl);
      console.log(`database ${result.database}: ${result.applied.length ? `applied ${result.applied.join(', ')}` : 'up to date'}`);
      return;
    }
    case 'schedules': {
      const { positionals } = args(rest);
      if (one(positionals, 'subcommand (install)') !== 'install') throw new CliError(`unknown subcommand: schedules ${positionals[0]}`, 2);
      const cfg = config(true);
      const temporal = await connectTemporal(cfg);
      try {
        for (const s of await installSchedules(temporal.client, cfg)) console.log(`schedule ${s.id} ${s.action}`);
        // The watchers on stderr: stdout stays one line per schedule for scripts.
        const watchers = await installWatchers(temporal.client, cfg);
        console.error(
          `email-rag schedules: IDLE watchers ${cfg.imap.idle ? 'on' : 'off (IMAP_IDLE=off)'}${watchers.map((w) => `; ${w.id} ${w.action}`).join('')}`,
        );
      } finally {
        await temporal.close();
      }
      return;
    }
    case 'temporal': {
      const { positionals, values } = args(rest, { 'retention-days': { type: 'string' } });
      if (one(positionals, 'subcommand (setup)') !== 'setup') throw new CliError(`unknown subcommand: temporal ${positionals[0]}`, 2);
      const retention = values['retention-days'] === undefined ? undefined : Number(values['retention-days']);
      if (retention !== undefined && (!Number.isInteger(retention) || retention < 1 || retention > 3650))
        throw new CliError('--retention-days takes a whole number of days between 1 and 3650', 2);
      const cfg = config();
      const temporal = await connectTemporal(cfg);
      try {
        const r = await registerSearchAttributes(temporal.client.connection, cfg.temporal.namespace);
        console.log(
          `search attributes on ${cfg.temporal.namespace}: added ${r.added.join(', ') || 'none'}; already there ${r.present.join(', ') || 'none'}`,
        );
        if (retention !== undefined) {
          const set = await setNamespaceRetention(temporal.client.connection, cfg.temporal.namespace, retention);
          if (set.outcome === 'set')
            console.log(`retention on ${cfg.temporal.namespace}: ${retention} days (was ${set.beforeDays ?? '?'})`);
          else {
            console.error(`email-rag: retention not set by the server (${set.reason}); set it where the cluster is administered`);
            process.exitCode = 1;
          }
        }
      } finally {
        await temporal.close();
      }
      return;
    }
    case 'codec-server': {
      args(rest);
      await runCodecServer(config());
      return;
    }
    case 'poll': {
      const { values } = args(rest, { mailbox: { type: 'string' } });
      const cfg = config(true);
      const temporal = await connectTemporal(cfg);
      try {
        const polled = await triggerPoll(temporal.client, cfg, typeof values.mailbox === 'string' ? values.mailbox : undefined);
        const now = polled.filter((r) => r.after === null).map((r) => r.mailboxId);
        if (now.length > 0) console.log(`poll triggered: ${now.join(', ')}`);
        // Never two poll runs of one mailbox at once: the request waits for the run in progress.
        for (const r of polled.filter((p) => p.after !== null)) {
          console.log(`poll of ${r.mailboxId} queued: it runs when the poll in progress (${r.after}) ends`);
        }
      } finally {
        await temporal.close();
      }
      return;
    }
    case 'cleanup': {
      args(rest);
      const temporal = await connectTemporal(config());
      try {
        await triggerSchedule(temporal.client, CLEANUP_SCHEDULE_ID);
        console.log('cleanup triggered');
      } finally {
        await temporal.close();
      }
      return;
    }
    case 'ingest': {
      const { positionals, values } = args(rest, { history: { type: 'boolean', default: false }, mailbox: { type: 'string' } });
      const report = await ingest(config(), one(positionals, 'file or directory'), {
        history: values.history === true,
        ...(typeof values.mailbox === 'string' ? { mailboxId: values.mailbox } : {}),
        onLine: (line) => console.log(line),
        tty: process.stdout.isTTY === true,
        onProgress: (line) => console.error(line),
      });
      // The summary goes to stderr: stdout stays one line per file for scripts.
      console.error(`email-rag ingest: ${report.summary}`);
      if (report.failed > 0) process.exitCode = 1;
      return;
    }
    case 'knowledge': {
      const { positionals } = args(rest);
      if (one(positionals, 'subcommand (sync)') !== 'sync') throw new CliError(`unknown subcommand: knowledge ${positionals[0]}`, 2);
      for (const line of await knowledgeSync(config())) console.log(line);
      return;
    }
    case 'embedder': {
      const { values } = args(rest, { json: { type: 'boolean', default: false } });
      const check = await checkEmbedder(config());
      if (values.json) {
        console.log(JSON.stringify(check, null, 2));
        if (!check.ok) process.exitCode = 1;
      } else console.log(formatEmbedderCheck(check));
      return;
    }
    case 'status': {
      const { values } = args(rest, { json: { type: 'boolean', default: false } });
      const report = await status(config());
      console.log(values.json ? JSON.stringify(report, null, 2) : formatStatus(report));
      return;
    }
    case 'cases': {
      const { positionals, values } = args(rest, {
        json: { type: 'boolean', default: false },
        status: { type: 'string' },
        mailbox: { type: 'string' },
        correspondent: { type: 'string' },
        by: { type: 'string' },
        'body-file': { type: 'string' },
      });
      const [sub, id, ...extra] = positionals;
      if (sub === 'list' && id === undefined) {
        const rows = await casesList(config(), {
          status: values.status as string | undefined,
          mailbox: values.mailbox as string | undefined,
          correspondent: values.correspondent as string | undefined,
        });
        console.log(values.json ? JSON.stringify(rows, null, 2) : formatCases(rows));
        return;
      }
      if (sub === 'show' && id && extra.length === 0) {
        const d = await casesShow(config(), id);
        console.log(values.json ? JSON.stringify(d, null, 2) : formatCase(d));
        return;
      }
      if (sub === 'answer' && id && extra.length === 0) {
        const r = await casesAnswer(config(), id, {
          by: (values.by as string | undefined) ?? defaultActor(),
          ...(values['body-file'] ? { bodyFile: values['body-file'] as string } : {}),
        });
        console.log(values.json ? JSON.stringify(r, null, 2) : formatCaseReply(r));
        if (!r.accepted) process.exitCode = 5;
        return;
      }
      throw new CliError(`usage: email-rag cases list | cases show CASE | cases answer CASE --by NAME\n${USAGE}`, 2);
    }
    case 'mailboxes': {
      const { positionals, values } = args(rest, { json: { type: 'boolean', default: false } });
      const [sub, id, ...extra] = positionals;
      if (sub === 'list' && id === undefined) {
        const list = await mailboxesList(config());
        console.log(values.json ? JSON.stringify(list, null, 2) : formatMailboxList(list));
        return;
      }
      if (sub === 'check' && extra.length === 0) {
        const checks = await mailboxesCheck(config(), id);
        console.log(values.json ? JSON.stringify(checks, null, 2) : formatMailboxChecks(checks));
        if (checks.some((c) => !c.ok)) process.exitCode = 1;
        return;
      }
      if (sub === 'authorize' && id && extra.length === 0) {
        console.log(await mailboxesAuthorize(config(), id, (line) => console.log(line)));
        return;
      }
      if ((sub === 'disable' || sub === 'enable') && id && extra.length === 0) {
        console.log(mailboxesSetEnabled(config(), id, sub === 'enable'));
        return;
      }
      throw new CliError(
        `usage: email-rag mailboxes list | mailboxes check [ID] | mailboxes authorize ID | mailboxes disable|enable ID\n${USAGE}`,
        2,
      );
    }
    case 'metrics': {
      const { values } = args(rest, {
        json: { type: 'boolean', default: false },
        minutes: { type: 'string' },
        'urgent-deadline': { type: 'string' },
      });
      const minutes = Number(values.minutes ?? 60);
      const deadline = Number(values['urgent-deadline'] ?? 30);
      if (!Number.isInteger(minutes) || minutes < 1 || !Number.isInteger(deadline) || deadline < 1) {
        throw new CliError('--minutes and --urgent-deadline take whole numbers of minutes', 2);
      }
      const m = await metrics(config(), minutes, deadline);
      console.log(values.json ? JSON.stringify(m, null, 2) : formatMetrics(m));
      if (m.alerts.length > 0) process.exitCode = 4;
      return;
    }
    case 'quality': {
      const { values } = args(rest, {
        json: { type: 'boolean', default: false },
        gaps: { type: 'boolean', default: false },
        since: { type: 'string', default: '30d' },
        by: { type: 'string', default: 'category' },
      });
      const since = String(values.since);
      const by = String(values.by);
      if (values.gaps) {
        const r = await qualityGaps(config(), { since });
        console.log(values.json ? JSON.stringify(r, null, 2) : formatGaps(r));
        return;
      }
      if (!(QUALITY_GROUPINGS as readonly string[]).includes(by)) {
        throw new CliError(`--by takes one of ${QUALITY_GROUPINGS.join(', ')}`, 2);
      }
      const r = await quality(config(), { since, by: by as QualityGrouping });
      console.log(values.json ? JSON.stringify(r, null, 2) : formatQuality(r));
      return;
    }
    case 'drafts': {
      const { values } = args(rest, { json: { type: 'boolean', default: false } });
      const list = await drafts(config());
      if (values.json) console.log(JSON.stringify(list, null, 2));
      else if (list.length === 0) console.log('no drafts waiting for approval');
      else
        for (const d of list) {
          const flags = d.flags.length > 0 ? `, flags: ${d.flags.join(' ')}` : '';
          console.log(
            `${d.emailId}\tdraft ${d.version} (${d.id})\tto ${d.to.address}\t${d.subject}\t(${d.drafter}/${d.model}, confidence ${d.confidence}${flags})`,
          );
        }
      return;
    }
    case 'dlq': {
      const { positionals, values } = args(rest, { json: { type: 'boolean', default: false }, by: { type: 'string' } });
      const [sub, idText, ...extra] = positionals;
      const id = Number(idText);
      if (sub === 'list' && idText === undefined) {
        const list = await dlqList(config());
        console.log(values.json ? JSON.stringify(list, null, 2) : formatDeadLetters(list));
        return;
      }
      if ((sub === 'show' || sub === 'requeue') && Number.isInteger(id) && id > 0 && extra.length === 0) {
        if (sub === 'show') {
          const d = await dlqShow(config(), id);
          console.log(values.json ? JSON.stringify(d, null, 2) : formatDeadLetter(d));
        } else {
          if (typeof values.by !== 'string' || values.by.trim() === '')
            throw new CliError('dlq requeue needs --by NAME (who authorised it)', 2);
          console.log(await dlqRequeue(config(), id, values.by));
        }
        return;
      }
      throw new CliError(`usage: email-rag dlq list | dlq show <id> | dlq requeue <id> --by NAME\n${USAGE}`, 2);
    }
    case 'approve': {
      const { positionals, values } = args(rest, { 'body-file': { type: 'string' }, by: { type: 'string' }, draft: { type: 'string' } });
      const by = typeof values.by === 'string' ? values.by : defaultActor();
      const bodyFile = typeof values['body-file'] === 'string' ? values['body-file'] : undefined;
      const draft = typeof values.draft === 'string' ? values.draft : undefined;
      console.log(await approve(config(), one(positionals, 'workflow id'), { by, bodyFile, ...(draft ? { draft } : {}) }));
      return;
    }
    case 'redraft': {
      const { positionals, values } = args(rest, { reason: { type: 'string' }, by: { type: 'string' }, draft: { type: 'string' } });
      const by = typeof values.by === 'string' ? values.by : defaultActor();
      const opts = {
        by,
        ...(typeof values.reason === 'string' ? { reason: values.reason } : {}),
        ...(typeof values.draft === 'string' ? { draft: values.draft } : {}),
      };
      console.log(await redraft(config(), one(positionals, 'workflow id'), opts));
      return;
    }
    case 'resend': {
      const { positionals, values } = args(rest, { force: { type: 'boolean', default: false }, by: { type: 'string' } });
      const by = typeof values.by === 'string' ? values.by : defaultActor();
      console.log(await resend(config(), one(positionals, 'workflow id'), { by, force: values.force === true }));
      return;
    }
    case 'mark-sent': {
      const { positionals, values } = args(rest, { note: { type: 'string' }, by: { type: 'string' } });
      const by = typeof values.by === 'string' ? values.by : defaultActor();
      console.log(
        await markSent(config(), one(positionals, 'workflow id'), {
          by,
          ...(typeof values.note === 'string' ? { note: values.note } : {}),
        }),
      );
      return;
    }
    case 'reject': {
      const { positionals, values } = args(rest, { reason: { type: 'string' }, by: { type: 'string' }, draft: { type: 'string' } });
      if (typeof values.reason !== 'string' || values.reason.trim() === '') throw new CliError('reject needs --reason "…"', 2);
      const by = typeof values.by === 'string' ? values.by : defaultActor();
      console.log(
        await reject(config(), one(positionals, 'workflow id'), {
          by,
          reason: values.reason,
          ...(typeof values.draft === 'string' ? { draft: values.draft } : {}),
        }),
      );
      return;
    }
    case 'answer': {
      const { positionals, values } = args(rest, { by: { type: 'string' } });
      const id = one(positionals, 'email id');
      if (typeof values.by !== 'string' || values.by.trim() === '')
        throw new CliError('answer needs --by NAME (who asked for the reply)', 2);
      console.log(await answer(config(), id, values.by.trim()));
      return;
    }
    case 'autonomy': {
      const { positionals, values } = args(rest, {
        json: { type: 'boolean', default: false },
        by: { type: 'string' },
        draft: { type: 'string' },
      });
      const [sub, ...extra] = positionals;
      const by = typeof values.by === 'string' ? values.by : undefined;
      if (sub === 'stop' && extra.length === 1) {
        console.log(await autonomyStop(config(), extra[0]!, { by, ...(typeof values.draft === 'string' ? { draft: values.draft } : {}) }));
        return;
      }
      if (sub === 'status' && extra.length === 0) {
        const s = await autonomyStatus(config());
        console.log(values.json ? JSON.stringify(s, null, 2) : formatAutonomyStatus(s));
        return;
      }
      if ((sub === 'on' || sub === 'off') && extra.length === 0) {
        console.log(await autonomySwitch(config(), sub === 'on', by));
        return;
      }
      throw new CliError(
        `usage: email-rag autonomy status [--json] | autonomy off|on --by NAME | autonomy stop <emailId> [--draft ID] --by NAME\n${USAGE}`,
        2,
      );
    }
    case 'inbox': {
      const { positionals, values } = args(rest, { role: { type: 'string' } });
      const [sub, action, name, ...extra] = positionals;
      if (sub === undefined) {
        await runInbox(config());
        return;
      }
      if (sub === 'users' && action === 'add' && name && extra.length === 0) {
        console.log(await inboxUsersAdd(config(), name, String(values.role ?? 'reviewer'), await readPassword()));
        return;
      }
      if (sub === 'users' && action === 'disable' && name && extra.length === 0) {
        console.log(await inboxUsersDisable(config(), name));
        return;
      }
      if (sub === 'users' && action === 'reset-password' && name && extra.length === 0) {
        console.log(await inboxUsersResetPassword(config(), name, await readPassword()));
        return;
      }
      if (sub === 'users' && action === 'sign-out' && name && extra.length === 0) {
        console.log(await inboxUsersSignOut(config(), name));
        return;
      }
      if (sub === 'users' && action === 'unlock' && name && extra.length === 0) {
        console.log(await inboxUsersUnlock(config(), name));
        return;
      }
      throw new CliError(
        `usage: email-rag inbox | inbox users add NAME --role R | inbox users disable|reset-password|sign-out|unlock NAME\n${USAGE}`,
        2,
      );
    }
    case 'audit': {
      const { positionals, values } = args(rest, {
        json: { type: 'boolean', default: false },
        user: { type: 'string' },
        email: { type: 'string' },
        since: { type: 'string' },
      });
      if (positionals.length !== 1 || positionals[0] !== 'access')
        throw new CliError(`usage: email-rag audit access [options]\n${USAGE}`, 2);
      const rows = await auditAccess(config(), {
        user: values.user as string | undefined,
        email: values.email as string | undefined,
        since: values.since as string | undefined,
      });
      console.log(values.json ? JSON.stringify(rows, null, 2) : formatAccess(rows));
      return;
    }
    case 'privacy': {
      const { positionals, values } = args(rest, {
        json: { type: 'boolean', default: false },
        out: { type: 'string' },
        by: { type: 'string' },
        force: { type: 'boolean', default: false },
        'dry-run': { type: 'boolean', default: false },
      });
      const [sub, target, ...extra] = positionals;
      if (sub === 'export' && target && extra.length === 0) {
        const r = await privacyExport(config(), target, {
          by: (values.by as string | undefined) ?? defaultActor(),
          ...(values.out ? { out: values.out as string } : {}),
        });
        console.log(
          values.json
            ? JSON.stringify(r, null, 2)
            : `${r.file}: ${r.emails} email(s), ${r.rawMessages} raw message(s), ${r.attachments} attachment(s)`,
        );
        return;
      }
      if (sub === 'erase' && target && extra.length === 0) {
        if (typeof values.by !== 'string' || values.by.trim() === '')
          throw new CliError('privacy erase needs --by NAME (who asked for it)', 2);
        const r = await privacyErase(config(), target, {
          by: values.by.trim(),
          force: values.force === true,
          dryRun: values['dry-run'] === true,
        });
        console.log(values.json ? JSON.stringify(r, null, 2) : formatErasure(r));
        return;
      }
      if (sub === 'purge' && target === undefined) {
        const r = await privacyPurge(config(), { dryRun: values['dry-run'] === true });
        const line = Object.entries(r.purged)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ');
        console.log(
          values.json
            ? JSON.stringify(r, null, 2)
            : `${values['dry-run'] ? 'expired' : 'purged'}: ${line || 'nothing (every RETENTION_* is 0)'}`,
        );
        return;
      }
      throw new CliError(`usage: email-rag privacy export <address> | privacy erase <address> --by NAME | privacy purge\n${USAGE}`, 2);
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return;
    default:
      throw new CliError(`unknown command: ${command}\n${USAGE}`, 2);
  }
}

run(process.argv.slice(2)).then(
  () => {
    // Leftover sockets (gRPC keep-alives) must not keep a one-shot command alive.
    if (process.argv[2] !== 'worker') process.exit(process.exitCode ?? 0);
  },
  (err: unknown) => {
    if (err instanceof CliError) {
      console.error(`email-rag: ${err.message}`);
      process.exit(err.exitCode);
    }
    if (err instanceof ConfigError) {
      console.error(`email-rag: ${err.message}`);
      process.exit(2);
    }
    console.error(`email-rag: ${errorMessage(err)}`);
    process.exit(1);
  },
);
