import { chmodSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import { createMariaDbMailboxHealth } from './mailbox-health.mariadb';
import { probeImap, probeSmtp, type ProbeStep } from './mailbox-probe.imap';
import type { Config } from '../platform/config';
import { registryDefaults } from './mailboxes.config';
import { FAILURE_TYPES } from '../platform/contract';
import { createOAuthTokenProvider } from './oauth-token-provider';
import { errorMessage } from '../platform/errors';
import { createLogger } from '../platform/logger';
import { describeOAuth, type OAuthSettings } from './mailbox-oauth';
import { classifyError } from '../platform/retry-decision';
import type { AccessTokenProvider } from './access-tokens.port';
import { describeSecret, resolveSecret, type MailboxEntry, type SentFolderLookup } from './mailbox-registry';
import { setMailboxEnabled } from './mailbox-registry-edit';
import { createMariaDbWatcherHealth } from './watcher-health.mariadb';
import { watcherLine, watcherStatus, type WatcherStatus } from './watcher-view';
import type { WatcherRow } from './watcher-health.port';
import type { PollHealth } from './mailbox-health.port';
import { CliError, connectDatabase, connectTemporal } from '../platform/cli-context';
import { pollScheduleId } from './schedule-ids';
import { groupUsage, JSON_OPTION, type CliCommand } from '../platform/cli-command';
import { MAILBOX_MODES, type MailboxMode } from './mailboxes.contract';
import { mailboxesAuthorize } from './mailbox-authorize.cli';
import { mailboxModeCommand } from './mailbox-mode.cli';

/** One mailbox as `email-rag mailboxes list` shows it: settings, secret references (never values), health. */
export interface MailboxListing {
  id: string;
  enabled: boolean;
  /** `shadow`: drafts in the background, nothing is sent. */
  mode: MailboxMode;
  team: string;
  imap: {
    user: string;
    host: string;
    port: number;
    tls: boolean;
    folders: string[];
    sentFolder: string;
    password: string;
    pollIntervalSeconds: number;
  };
  smtp: {
    host: string;
    port: number;
    tls: boolean;
    from: string;
    user: string | null;
    password: string;
    /** The provider files sent mail: how a send in doubt is looked up there; null when it does not. */
    providerFilesSent: SentFolderLookup | null;
  };
  /** `unknown` when Temporal could not be asked; `not installed` when the schedule is missing. */
  schedule: { id: string; state: 'active' | 'paused' | 'not installed' | 'unknown'; detail: string };
  /** mailbox_polls rows of the folders this entry watches; null when MariaDB could not be asked. */
  polls: PollHealth[] | null;
  /** Push intake (IMAP IDLE) per folder, as `email-rag status` shows it; null when MariaDB could not be asked. */
  watchers: Array<{ folder: string; watcher: WatcherStatus }> | null;
}

export interface MailboxList {
  source: string;
  mailboxes: MailboxListing[];
  /** Why schedule state or poll health are missing, if they are. */
  notes: string[];
}

export function registrySource(config: Config): string {
  return config.mailboxesFile
    ? `MAILBOXES_FILE ${config.mailboxesFile}`
    : 'the single-account variables (IMAP_*, SMTP_*) as mailbox "default"';
}

export async function mailboxesList(config: Config): Promise<MailboxList> {
  const notes: string[] = [];
  let polls: PollHealth[] | null = null;
  let watchers: WatcherRow[] | null = null;
  try {
    const pool = await connectDatabase(config);
    try {
      polls = await createMariaDbMailboxHealth(pool).list();
      watchers = await createMariaDbWatcherHealth(pool).list();
    } finally {
      await pool.end();
    }
  } catch (err) {
    notes.push(`poll health unknown: ${errorMessage(err)}`);
  }
  let schedules: Map<string, MailboxListing['schedule']> | null = null;
  try {
    const temporal = await connectTemporal(config);
    try {
      schedules = new Map();
      for (const m of config.mailboxes) schedules.set(m.id, await scheduleState(temporal.client, m));
    } finally {
      await temporal.close();
    }
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    notes.push(`schedule state unknown: ${err.message}`);
  }
  return {
    source: registrySource(config),
    notes,
    mailboxes: config.mailboxes.map((m) => ({
      id: m.id,
      enabled: m.enabled,
      mode: m.mode ?? MAILBOX_MODES.live,
      team: m.team,
      imap: {
        user: m.imap.user,
        host: m.imap.host,
        port: m.imap.port,
        tls: m.imap.tls,
        folders: m.imap.folders,
        sentFolder: m.imap.sentFolder,
        password: m.imap.oauth ? describeOAuth(m.imap.oauth) : describeSecret(m.imap.password),
        pollIntervalSeconds: m.imap.pollIntervalSeconds,
      },
      smtp: {
        host: m.smtp.host,
        port: m.smtp.port,
        tls: m.smtp.tls,
        from: formatFrom(m.smtp.from),
        user: m.smtp.user ?? null,
        password: m.smtp.oauth ? describeOAuth(m.smtp.oauth) : describeSecret(m.smtp.password),
        providerFilesSent: m.smtp.providerFilesSent ?? null,
      },
      schedule: schedules?.get(m.id) ?? { id: pollScheduleId(m.id), state: 'unknown', detail: 'Temporal not reachable' },
      polls: polls ? polls.filter((p) => p.mailboxId === m.id && m.imap.folders.includes(p.folder)) : null,
      watchers: watchers
        ? m.imap.folders.map((folder) => ({
            folder,
            watcher: watcherStatus(
              config.imap.idle && m.enabled,
              watchers?.find((w) => w.mailboxId === m.id && w.folder === folder),
            ),
          }))
        : null,
    })),
  };
}

async function scheduleState(client: Client, m: MailboxEntry): Promise<MailboxListing['schedule']> {
  const id = pollScheduleId(m.id);
  try {
    const d = await client.schedule.getHandle(id).describe();
    const next = d.info.nextActionTimes[0];
    const every = (d.spec.intervals?.[0]?.every ?? 0) / 1000;
    const stale = m.enabled ? '' : ' (mailbox disabled: `email-rag schedules install` removes it)';
    return {
      id,
      state: d.state.paused ? 'paused' : 'active',
      detail: `every ${every} s${d.state.paused ? `, paused: ${d.state.note ?? ''}` : next ? `, next ${next.toISOString()}` : ''}${stale}`,
    };
  } catch (err) {
    if (!(err instanceof ScheduleNotFoundError)) throw err;
    return {
      id,
      state: 'not installed',
      detail: m.enabled ? 'run `email-rag schedules install`' : 'mailbox disabled',
    };
  }
}

/** `password $VAR` / `password file …`, or the OAuth2 sign-in as describeOAuth says it. */
function signIn(described: string): string {
  return described.startsWith('OAuth2') ? `sign-in ${described}` : `password ${described}`;
}

function formatFrom(from: { name: string; address: string }): string {
  return from.name ? `"${from.name}" <${from.address}>` : from.address;
}

/** One line per folder: when it last polled successfully and, while failing, why and how often. */
export function pollHealthLine(p: PollHealth | undefined, folder: string): string {
  if (!p) return `${folder}: never polled`;
  const success = p.lastSuccessAt ? `last success ${p.lastSuccessAt.toISOString()}` : 'never polled successfully';
  if (!p.lastError) return `${folder}: ${success}`;
  const times = p.failuresInARow === 1 ? 'once' : `${p.failuresInARow} times in a row`;
  if (p.lastError.startsWith(`${FAILURE_TYPES.mailboxNotSignedIn}:`))
    return `${folder}: ${success}; WAITING for its first OAuth2 sign-in: \`email-rag mailboxes authorize ${p.mailboxId}\` (polls wait until then, no dead letters)`;
  if (p.lastError.startsWith(`${FAILURE_TYPES.mailboxAuthExpired}:`))
    return `${folder}: ${success}; BLOCKED, OAuth2 sign-in refused (${times}): ${p.lastError} (fix the sign-in, or \`email-rag mailboxes authorize ${p.mailboxId}\`; the next poll tries again)`;
  return `${folder}: ${success}; FAILING ${times} since then: ${p.lastErrorClass ? `[${p.lastErrorClass}] ` : ''}${p.lastError}`;
}

export function formatMailboxList(list: MailboxList): string {
  const lines = [`mailboxes from ${list.source}:`];
  for (const m of list.mailboxes) {
    lines.push('');
    lines.push(
      `${m.id}  ${m.enabled ? 'enabled' : 'DISABLED'}  ${m.mode === MAILBOX_MODES.shadow ? 'SHADOW (drafts only, nothing sent)' : 'live'}  team ${m.team}`,
    );
    lines.push(
      `  imap      ${m.imap.user}@${m.imap.host}:${m.imap.port}${m.imap.tls ? ' (TLS)' : ''}  folders ${m.imap.folders.join(', ')}  Sent folder ${m.imap.sentFolder}  ${signIn(m.imap.password)}`,
    );
    lines.push(
      `  smtp      ${m.smtp.host}:${m.smtp.port}${m.smtp.tls ? ' (TLS)' : ''}  From ${m.smtp.from}  ${m.smtp.user ? `login ${m.smtp.user} ${signIn(m.smtp.password)}` : 'no login'}` +
        (m.smtp.providerFilesSent
          ? `  Sent filed by the provider: a send in doubt is looked up ${m.smtp.providerFilesSent.attempts} × ${m.smtp.providerFilesSent.graceSeconds} s`
          : ''),
    );
    lines.push(`  schedule  ${m.schedule.id} ${m.schedule.state}${m.schedule.detail ? `: ${m.schedule.detail}` : ''}`);
    if (m.polls)
      for (const f of m.imap.folders)
        lines.push(
          `  poll      ${pollHealthLine(
            m.polls.find((p) => p.folder === f),
            f,
          )}`,
        );
    for (const w of m.watchers ?? []) lines.push(`  ${w.folder}  ${watcherLine(w.watcher)}`);
  }
  for (const n of list.notes) lines.push('', n);
  return lines.join('\n');
}

export interface MailboxCheck {
  id: string;
  ok: boolean;
  /** Set when the mailbox was not tried (disabled and not named). */
  skipped?: string;
  steps: ProbeStep[];
}

/**
 * Tries every enabled mailbox (or the one named, even when disabled): its secrets resolve, IMAP
 * login works, the watched folders and the Sent folder exist, and SMTP greets, answers EHLO and
 * (with a user) accepts the login. Nothing is sent, created or changed.
 */
export async function mailboxesCheck(
  config: Config,
  id?: string,
  env: Record<string, string | undefined> = process.env,
): Promise<MailboxCheck[]> {
  let entries = config.mailboxes;
  if (id !== undefined) {
    const entry = config.mailboxes.find((m) => m.id === id);
    if (!entry) throw new CliError(`no mailbox "${id}" in the registry (known: ${config.mailboxes.map((m) => m.id).join(', ')})`, 2);
    entries = [entry];
  }
  const tokens = createOAuthTokenProvider({ readSecret: (ref) => resolveSecret(ref, env), logger: createLogger('oauth') });
  return Promise.all(
    entries.map(async (m): Promise<MailboxCheck> => {
      if (id === undefined && !m.enabled) return { id: m.id, ok: true, skipped: 'disabled', steps: [] };
      const steps = [...(await checkImap(m, env, tokens)), ...(await checkSmtp(m, env, tokens))];
      return { id: m.id, ok: steps.every((s) => s.ok), steps };
    }),
  );
}

/** One token provider per check run: IMAP and SMTP of one Microsoft 365 app share a token. */
type Tokens = AccessTokenProvider;

async function oauthToken(tokens: Tokens, m: MailboxEntry, user: string, oauth: OAuthSettings, what: string): Promise<ProbeStep> {
  try {
    await tokens.source({ mailboxId: m.id, user, oauth }).get();
    return { step: `${what} oauth2 token`, ok: true, detail: `granted by ${oauth.provider} for ${user}` };
  } catch (err) {
    const c = classifyError(err);
    // A refused or missing refresh token is healed by signing in again, not by a retry: after a
    // restore, a provider that retires a refresh token on each use may have retired the backup's.
    const refused = c.code === FAILURE_TYPES.mailboxAuthExpired || c.code === FAILURE_TYPES.mailboxNotSignedIn;
    const hint = refused && oauth.refreshToken ? ` (sign in again: \`email-rag mailboxes authorize ${m.id}\`)` : '';
    return { step: `${what} oauth2 token`, ok: false, detail: `${c.code}: ${c.message}${hint}` };
  }
}

async function checkImap(m: MailboxEntry, env: Record<string, string | undefined>, tokens: Tokens): Promise<ProbeStep[]> {
  const { host, port, tls, user, folders, sentFolder, oauth } = m.imap;
  if (oauth) {
    const got = await oauthToken(tokens, m, user, oauth, 'imap');
    if (!got.ok) return [got];
    const accessToken = await tokens.source({ mailboxId: m.id, user, oauth }).get();
    return [got, ...(await probeImap({ host, port, tls, user, accessToken }, folders, sentFolder))];
  }
  let password: string;
  try {
    password = resolveSecret(m.imap.password ?? { env: 'IMAP_PASSWORD' }, env);
  } catch (err) {
    return [{ step: 'imap password', ok: false, detail: errorMessage(err) }];
  }
  return probeImap({ host, port, tls, user, password }, folders, sentFolder);
}

async function checkSmtp(m: MailboxEntry, env: Record<string, string | undefined>, tokens: Tokens): Promise<ProbeStep[]> {
  const { oauth } = m.smtp;
  if (oauth) {
    const user = m.smtp.user ?? m.imap.user;
    const got = await oauthToken(tokens, m, user, oauth, 'smtp');
    if (!got.ok) return [got];
    const accessToken = await tokens.source({ mailboxId: m.id, user, oauth }).get();
    const { host, port, tls, timeoutMs } = m.smtp;
    return [got, ...(await probeSmtp({ host, port, tls, user, accessToken, mechanism: oauth.mechanism, timeoutMs }))];
  }
  let password: string | undefined;
  if (m.smtp.user && m.smtp.password) {
    try {
      password = resolveSecret(m.smtp.password, env);
    } catch (err) {
      return [{ step: 'smtp password', ok: false, detail: errorMessage(err) }];
    }
  }
  const { host, port, tls, user, timeoutMs } = m.smtp;
  return probeSmtp({ host, port, tls, user, password, timeoutMs });
}

export function formatMailboxChecks(checks: MailboxCheck[]): string {
  const lines: string[] = [];
  for (const c of checks) {
    if (c.skipped) {
      lines.push(`${c.id}: skipped (${c.skipped})`);
      continue;
    }
    const failed = c.steps.filter((s) => !s.ok);
    lines.push(`${c.id}: ${c.ok ? 'ok' : `FAILED: ${failed.map((s) => `${s.step}: ${s.detail}`).join('; ')}`}`);
    for (const s of c.steps) lines.push(`  ${s.ok ? 'ok  ' : 'FAIL'} ${s.step}: ${s.detail}`);
  }
  return lines.join('\n');
}

/**
 * `mailboxes disable|enable ID`: edits MAILBOXES_FILE in place (comments kept) and says what to do
 * next; the schedules follow with `email-rag schedules install`, after the change is committed.
 */
export function mailboxesSetEnabled(config: Config, id: string, enabled: boolean): string {
  const file = config.mailboxesFile;
  if (!file)
    throw new CliError(
      'no MAILBOXES_FILE: the single mailbox "default" comes from the IMAP_* / SMTP_* variables (docs/mailboxes.md shows how to move it into a file)',
      2,
    );
  const full = path.resolve(file);
  const text = readFileSync(full, 'utf8');
  const result = setMailboxEnabled(text, id, enabled, {
    json: /\.json$/i.test(full),
    defaults: registryDefaults(config),
  });
  const word = enabled ? 'enabled' : 'disabled';
  if (!result.changed) return `mailbox ${id} is already ${word} in ${file}`;
  // Write beside the file and rename: a reader never sees half a registry.
  const tmp = `${full}.${process.pid}.tmp`;
  writeFileSync(tmp, result.text);
  chmodSync(tmp, statSync(full).mode & 0o777);
  renameSync(tmp, full);
  return `mailbox ${id} ${word} in ${file}; run \`email-rag schedules install\` to ${enabled ? 'create' : 'remove'} its poll schedule`;
}

const setEnabled = (enabled: boolean): CliCommand<string> => ({
  name: `mailboxes ${enabled ? 'enable' : 'disable'}`,
  ...(enabled
    ? {}
    : {
        usage: `mailboxes disable|enable ID             set enabled: false|true of ID in MAILBOXES_FILE (comments kept);
                                        then schedules install`,
      }),
  accepts: (rest) => rest.length === 1 && !!rest[0],
  run: (ctx, { positionals }) => Promise.resolve(mailboxesSetEnabled(ctx.config(), positionals[0]!, enabled)),
});

export const mailboxesCommands: CliCommand[] = [
  {
    name: 'mailboxes list',
    usage: `mailboxes list [--json]                 the mailbox registry: accounts, folders, identities, secret references
                                        (never values), schedule state, last successful poll, last error`,
    options: JSON_OPTION,
    accepts: (rest) => rest.length === 0,
    run: (ctx) => mailboxesList(ctx.config()),
    format: formatMailboxList,
  } satisfies CliCommand<MailboxList>,
  {
    name: 'mailboxes check',
    usage: `mailboxes check [ID] [--json]           try IMAP login, folders, Sent folder and SMTP (EHLO, AUTH) of every
                                        enabled mailbox or of ID, sending nothing; exit 1 if any fails`,
    options: JSON_OPTION,
    accepts: (rest) => rest.length <= 1,
    run: (ctx, { positionals }) => mailboxesCheck(ctx.config(), positionals[0]),
    format: formatMailboxChecks,
    exitCode: (checks) => (checks.some((c) => !c.ok) ? 1 : undefined),
  } satisfies CliCommand<MailboxCheck[]>,
  {
    name: 'mailboxes authorize',
    usage: `mailboxes authorize ID                  OAuth2 device-code sign-in for ID (delegated Microsoft 365, Google,
                                        OIDC): stores the refresh token in its { file } reference (0600)`,
    accepts: (rest) => rest.length === 1 && !!rest[0],
    run: (ctx, { positionals }) => mailboxesAuthorize(ctx.config(), positionals[0]!, (line) => console.log(line)),
  } satisfies CliCommand<string>,
  setEnabled(false),
  setEnabled(true),
  mailboxModeCommand,
  groupUsage(
    'mailboxes',
    'mailboxes list | mailboxes check [ID] | mailboxes authorize ID | mailboxes disable|enable ID | mailboxes mode ID live|shadow',
  ),
];
