/**
 * The mailboxes section of the configuration (src/config.ts assembles the sections): the
 * single-account variables (IMAP_*, SMTP_*) and the registry (MAILBOXES_FILE, docs/mailboxes.md).
 */
import type { PriorityRule } from '../triage';
import { envValues, type Env, type EnvValues } from '../platform/env-values';
import { errorMessage } from '../platform/errors';
import {
  DEFAULT_MAILBOX_ID,
  parseFromAddress,
  readMailboxRegistry,
  resolveSecret,
  type MailboxDefaults,
  type MailboxEntry,
  type SecretRef,
} from './mailbox-registry';

/**
 * BACKLOG_LIMIT's default: inside a worker's cache of 250 runs, which also holds the emails
 * waiting for a person and the replies being sent; a backlog that does not fit makes each email's
 * next task replay its evicted run (docs/performance.md).
 */
const DEFAULT_BACKLOG_LIMIT = 200;

export interface ImapSettings {
  host: string;
  port: number;
  user: string;
  password: string;
  tls: boolean;
  folder: string;
  sentFolder: string;
  pollIntervalSeconds: number;
  importHistory: boolean;
  maxMessageBytes: number;
  pollBatchSize: number;
  /** Backpressure: the poll takes no more than this many emails into the pipeline at once. */
  backlogLimit: number;
  /** IMAP_IDLE: each enabled folder held in IDLE wakes its mailbox's poll on new mail (the schedule stays). */
  idle: boolean;
}

export interface SmtpSettings {
  host: string;
  port: number;
  user?: string;
  password?: string;
  tls: boolean;
  /** Silence that ends an SMTP session, also the wait for the reply after the final dot (SMTP_TIMEOUT_MS). */
  timeoutMs: number;
  from: { name: string; address: string };
}

export interface MailboxesConfig {
  imap: ImapSettings;
  smtp: SmtpSettings;
  /**
   * Every mailbox served (docs/mailboxes.md): from MAILBOXES_FILE, or the one `default`
   * mailbox the single-account variables describe. `imap` and `smtp` above stay the defaults.
   */
  mailboxes: MailboxEntry[];
  /** MAILBOXES_FILE when the registry comes from a file. */
  mailboxesFile?: string;
  /**
   * Reads a mailbox's secret by its reference from the environment this config was loaded from
   * (a function, so the values never show up when the config is printed or serialised).
   */
  readSecret(ref: SecretRef): string;
}

/**
 * `imap: false`: the command never touches the mailbox and runs without its secrets.
 * `priorityRules`: PRIORITY_RULES, which the `default` mailbox carries.
 */
export function readMailboxesConfig(
  env: Env,
  problems: string[],
  needs: { imap: boolean; priorityRules: PriorityRule[] },
): MailboxesConfig {
  const v = envValues(env, problems);
  const mailboxesFile = v.optional('MAILBOXES_FILE');
  // With a registry file the single-account variables only give defaults for its entries.
  const imap = readImap(v, needs.imap && !mailboxesFile);
  const smtp = readSmtp(v);
  const config: MailboxesConfig = { imap, smtp, mailboxes: [], mailboxesFile, readSecret: (ref) => resolveSecret(ref, env) };
  if (mailboxesFile) {
    try {
      config.mailboxes = readMailboxRegistry(mailboxesFile, registryDefaults(config));
    } catch (err) {
      problems.push(errorMessage(err));
    }
    if (config.mailboxes.length > 0 && !config.mailboxes.some((m) => m.enabled))
      problems.push(`MAILBOXES_FILE ${mailboxesFile}: no mailbox is enabled`);
  } else {
    config.mailboxes = [defaultMailbox(config, needs.priorityRules)];
  }
  return config;
}

function readImap(v: EnvValues, needSecrets: boolean): ImapSettings {
  return {
    host: v.text('IMAP_HOST', '127.0.0.1'),
    port: v.intInRange('IMAP_PORT', 143, 1, 65535),
    user: v.text('IMAP_USER', needSecrets ? undefined : ''),
    password: v.text('IMAP_PASSWORD', needSecrets ? undefined : ''),
    tls: v.boolean('IMAP_TLS', false),
    folder: v.text('IMAP_FOLDER', 'INBOX'),
    sentFolder: v.text('IMAP_SENT_FOLDER', 'Sent'),
    pollIntervalSeconds: v.intInRange('IMAP_POLL_INTERVAL_SECONDS', 60, 5, 86_400),
    importHistory: v.boolean('IMAP_IMPORT_HISTORY', false),
    maxMessageBytes: v.intInRange('MAX_MESSAGE_BYTES', 25 * 1024 * 1024, 1024),
    pollBatchSize: v.intInRange('IMAP_POLL_BATCH_SIZE', 100, 1, 10_000),
    backlogLimit: v.intInRange('BACKLOG_LIMIT', DEFAULT_BACKLOG_LIMIT, 1),
    idle: v.boolean('IMAP_IDLE', true),
  };
}

function readSmtp(v: EnvValues): SmtpSettings {
  const fromAddress = v.text('SMTP_FROM', 'assistant@localhost');
  const from = parseFromAddress(fromAddress);
  if (!from) v.problems.push(`SMTP_FROM is not an email address: "${fromAddress}"`);
  const smtp: SmtpSettings = {
    host: v.text('SMTP_HOST', '127.0.0.1'),
    port: v.intInRange('SMTP_PORT', 25, 1, 65535),
    user: v.optional('SMTP_USER'),
    password: v.env.SMTP_PASSWORD || undefined,
    tls: v.boolean('SMTP_TLS', false),
    timeoutMs: v.intInRange('SMTP_TIMEOUT_MS', 60_000, 500, 600_000),
    from: from ?? { name: '', address: fromAddress },
  };
  if (smtp.user && !smtp.password) v.problems.push('SMTP_PASSWORD is required when SMTP_USER is set');
  return smtp;
}

/** The single-account variables as the `default` mailbox; secrets stay referenced by name. */
function defaultMailbox(config: Pick<MailboxesConfig, 'imap' | 'smtp'>, priorityRules: PriorityRule[]): MailboxEntry {
  const { imap, smtp } = config;
  return {
    id: DEFAULT_MAILBOX_ID,
    enabled: true,
    team: `account:${imap.user.toLowerCase()}`,
    imap: {
      host: imap.host,
      port: imap.port,
      tls: imap.tls,
      user: imap.user,
      password: { env: 'IMAP_PASSWORD' },
      folders: [imap.folder],
      sentFolder: imap.sentFolder,
      pollIntervalSeconds: imap.pollIntervalSeconds,
    },
    smtp: {
      host: smtp.host,
      port: smtp.port,
      tls: smtp.tls,
      user: smtp.user,
      password: smtp.user ? { env: 'SMTP_PASSWORD' } : undefined,
      timeoutMs: smtp.timeoutMs,
      from: smtp.from,
    },
    priorityRules,
    language: 'de',
  };
}

/** What registry entries inherit when they leave a field out: the single-account variables. */
export function registryDefaults(config: Pick<MailboxesConfig, 'imap' | 'smtp'>): MailboxDefaults {
  return {
    imap: {
      host: config.imap.host,
      port: config.imap.port,
      tls: config.imap.tls,
      sentFolder: config.imap.sentFolder,
      pollIntervalSeconds: config.imap.pollIntervalSeconds,
    },
    smtp: { host: config.smtp.host, port: config.smtp.port, tls: config.smtp.tls, timeoutMs: config.smtp.timeoutMs },
    language: 'de',
  };
}

// This feature's section of the whole configuration (src/platform/config.ts).
declare module '../platform/config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged into the whole configuration
  interface Config extends MailboxesConfig {}
}
