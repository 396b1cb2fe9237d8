import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { DeadlineSettings } from '../business-time';
import { ConfigError, errorMessage } from '../platform/errors';
import type { Env } from '../platform/env-values';
import { parseDeadlineSettings } from './mailbox-deadlines';
import { MAILBOX_REGISTRY_SCHEMA } from './mailbox-registry-schema';
import { parseOAuthSettings, type OAuthSettings } from './mailbox-oauth';
import { parsePriorityRules, type PriorityRule } from '../triage';
import { parseSecretRef, type SecretRef } from '../platform/secret-ref';
import { unknownFieldProblems } from '../platform/config-schema';
import { MAILBOX_MODES, type MailboxMode } from './mailboxes.contract';

export type { SecretRef } from '../platform/secret-ref';

/** One mailbox the installation serves: an IMAP account and folder(s) plus its sending identity. */
export interface MailboxEntry {
  /** Stable id (lower-case letters, digits, `-`): in schedules, search attributes, status and metrics. */
  id: string;
  enabled: boolean;
  /**
   * Mailboxes of different accounts share retrieval context and threads only when they name the
   * same team; without one the key is the account and folder (src/mailboxes/mailbox-scope.ts).
   */
  team: string;
  imap: {
    host: string;
    port: number;
    tls: boolean;
    user: string;
    /** Password login (the default); exactly one of `password` and `oauth` is set. */
    password?: SecretRef;
    /** OAuth2 sign-in (`auth: { type: oauth2, … }`). */
    oauth?: OAuthSettings;
    /** Folders watched for new mail, each with its own watermark. */
    folders: string[];
    /** Where the exact bytes of every sent reply are filed. */
    sentFolder: string;
    pollIntervalSeconds: number;
  };
  smtp: {
    host: string;
    port: number;
    tls: boolean;
    user?: string;
    password?: SecretRef;
    /** OAuth2 sign-in; `user` is then the login user (the IMAP user unless set). */
    oauth?: OAuthSettings;
    timeoutMs: number;
    from: { name: string; address: string };
    /** Appended below every reply sent from this mailbox. */
    signature?: string;
    /** The signature of the HTML part (the operator's markup); without it the text signature, escaped. */
    signatureHtml?: string;
    /** An image file (PNG, JPEG, GIF) embedded below the HTML signature as a `cid:` image. */
    logo?: string;
    /** `html` (default): multipart/alternative with the customer's message quoted; `text`: plain text only. */
    replyFormat?: 'html' | 'text';
    /**
     * The provider files every message it accepts in the Sent folder itself (Microsoft 365, Gmail):
     * no copy of ours is appended, and a send in doubt is looked up there by its Message-ID.
     */
    providerFilesSent?: SentFolderLookup;
  };
  priorityRules: PriorityRule[];
  /**
   * Colleagues' own addresses (`teamAddresses`): their mail to this mailbox is the team's, not a
   * customer's (triaged `own_address`), and a copy of their reply to a waiting mail answers it.
   */
  teamAddresses?: string[];
  /** `shadow`: drafts in the background, asks nobody, never sends (absent: live). */
  mode?: MailboxMode;
  /** Language of greetings and fallbacks when the mail's own cannot be told. */
  language: 'de' | 'en';
  /** Business hours, response targets, reminder and escalation of its cases; absent: the defaults (src/business-time/case-deadline.ts). */
  deadlines?: DeadlineSettings;
}

/** How a send in doubt is looked up in a Sent folder the provider fills. */
export interface SentFolderLookup {
  /** Wait before each look: the provider files the message shortly after it accepted it. */
  graceSeconds: number;
  /** Looks before the send stays in doubt for a person. */
  attempts: number;
}

export const SENT_LOOKUP_DEFAULTS: SentFolderLookup = { graceSeconds: 5, attempts: 3 };
/**
 * The whole lookup runs inside the send step, after an SMTP session that may have waited its full
 * timeout: bounded so that both fit the step's two minutes.
 */
export const SENT_LOOKUP_MAX_SECONDS = 60;

/** The id of the mailbox the single-account variables (IMAP_USER, IMAP_FOLDER, SMTP_FROM …) describe. */
export const DEFAULT_MAILBOX_ID = 'default';
export const REGISTRY_VERSION = 1;

const ID = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;
const ADDRESS = /^[^\s@<>()",;:]+@[^\s@<>()",;:]+$/;

/** Fields shared by every entry unless the entry sets them (the file's `defaults`). */
export interface MailboxDefaults {
  imap: { host: string; port: number; tls: boolean; sentFolder: string; pollIntervalSeconds: number };
  smtp: { host: string; port: number; tls: boolean; timeoutMs: number };
  language: 'de' | 'en';
}

/**
 * Parses a registry file (JSON or YAML, `version: 1`). Throws one ConfigError that lists every
 * problem with the entry it belongs to, so a bad file never half-loads.
 */
export function parseMailboxRegistry(text: string, defaults: MailboxDefaults, source = 'MAILBOXES_FILE'): MailboxEntry[] {
  let doc: unknown;
  try {
    doc = parseYaml(text); // YAML is a superset of JSON: one parser reads both.
  } catch (err) {
    throw new ConfigError(`${source}: not valid YAML or JSON: ${errorMessage(err)}`);
  }
  const problems: string[] = [];
  const root = record(doc);
  if (!root) throw new ConfigError(`${source}: expected an object with "version" and "mailboxes"`);
  // Unknown keys at any level first: a misspelt field would otherwise just be its default.
  problems.push(...unknownFieldProblems(MAILBOX_REGISTRY_SCHEMA, root));
  if (root.version !== REGISTRY_VERSION) problems.push(`version must be ${REGISTRY_VERSION}, got ${JSON.stringify(root.version)}`);
  const list = root.mailboxes;
  if (!Array.isArray(list) || list.length === 0) problems.push('mailboxes must be a non-empty list');
  const entries: MailboxEntry[] = [];
  const seen = new Set<string>();
  for (const [i, raw] of (Array.isArray(list) ? list : []).entries()) {
    const where = `mailboxes[${i}]`;
    const entry = parseEntry(raw, defaults, (p) => problems.push(`${where}${p}`));
    if (!entry) continue;
    if (seen.has(entry.id)) problems.push(`${where}: id "${entry.id}" is used twice`);
    seen.add(entry.id);
    entries.push(entry);
  }
  const watched = new Map<string, string>();
  for (const e of entries) {
    for (const folder of e.imap.folders) {
      const key = `${e.imap.host}:${e.imap.port}/${e.imap.user}/${folder}`.toLowerCase();
      const other = watched.get(key);
      if (other) problems.push(`mailboxes "${other}" and "${e.id}" both watch ${folder} of ${e.imap.user}`);
      watched.set(key, e.id);
    }
  }
  if (problems.length > 0) throw new ConfigError(`${source}: ${problems.join('; ')}`);
  return entries;
}

/** Reads MAILBOXES_FILE; a path is resolved against the working directory. */
export function readMailboxRegistry(file: string, defaults: MailboxDefaults): MailboxEntry[] {
  let text: string;
  try {
    text = readFileSync(path.resolve(file), 'utf8');
  } catch (err) {
    throw new ConfigError(`MAILBOXES_FILE cannot be read: ${errorMessage(err)}`);
  }
  return parseMailboxRegistry(text, defaults, `MAILBOXES_FILE ${file}`);
}

/**
 * Reads a secret by its reference. Throws ConfigError naming the reference, never the value.
 * A file's trailing newline is dropped (as `echo secret > file` writes it).
 */
export function resolveSecret(ref: SecretRef, env: Env = process.env): string {
  if ('env' in ref) {
    const v = env[ref.env];
    if (v === undefined || v === '') throw new ConfigError(`secret variable ${ref.env} is not set`);
    return v;
  }
  try {
    return readFileSync(ref.file, 'utf8').replace(/\r?\n$/, '');
  } catch (err) {
    throw new ConfigError(`secret file ${ref.file} cannot be read: ${errorMessage(err)}`);
  }
}

/** How a secret reference reads in status output and logs. */
export function describeSecret(ref: SecretRef | undefined): string {
  if (!ref) return 'none';
  return 'env' in ref ? `$${ref.env}` : `file ${ref.file}`;
}

function parseEntry(raw: unknown, d: MailboxDefaults, problem: (p: string) => void): MailboxEntry | null {
  const o = record(raw);
  if (!o) {
    problem(': must be an object');
    return null;
  }
  const id = typeof o.id === 'string' ? o.id.trim() : '';
  if (!ID.test(id)) problem(`.id must be 1-40 lower-case letters, digits or "-", got ${JSON.stringify(o.id)}`);
  const imap = record(o.imap);
  const smtp = record(o.smtp);
  if (!imap) problem('.imap must be an object');
  if (!smtp) problem('.smtp must be an object');
  if (!imap || !smtp) return null;
  const f = fields(problem);
  const user = f.str(imap, 'imap.user');
  const folders = imap.folders === undefined ? ['INBOX'] : imap.folders;
  const folderList = Array.isArray(folders) ? folders.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : [];
  if (folderList.length === 0 || !Array.isArray(folders) || folderList.length !== folders.length)
    problem('.imap.folders must be a non-empty list of folder names');
  const fromText = f.str(smtp, 'smtp.from');
  const from = parseFromAddress(fromText);
  if (fromText && !from) problem(`.smtp.from is not an email address: "${fromText}"`);
  const imapAuth = parseAuth(imap, 'imap', f, problem);
  if (!imapAuth.password && !imapAuth.oauth && !imapAuth.failed)
    problem('.imap.password is required: { env: VARIABLE } or { file: path } (or imap.auth for OAuth2)');
  const smtpAuth = smtp.auth === 'imap' ? { oauth: imapAuth.oauth } : parseAuth(smtp, 'smtp', f, problem);
  if (smtp.auth === 'imap' && !imapAuth.oauth) problem('.smtp.auth "imap" needs an OAuth2 imap.auth to share');
  const smtpUser = f.optStr(smtp, 'smtp.user') ?? (smtpAuth.oauth ? user : undefined);
  const smtpPassword = smtpAuth.password;
  if (smtpUser && !smtpPassword && !smtpAuth.oauth) problem('.smtp.password is required when smtp.user is set');
  const rules = o.priorityRules === undefined ? { rules: [], problems: [] } : parsePriorityRules(rulesText(o.priorityRules));
  for (const p of rules.problems) problem(`.priorityRules: ${p}`);
  const language = o.language === undefined ? d.language : o.language;
  if (language !== 'de' && language !== 'en') problem(`.language must be de or en, got ${JSON.stringify(o.language)}`);
  const enabled = o.enabled === undefined ? true : o.enabled;
  if (typeof enabled !== 'boolean') problem('.enabled must be true or false');
  const team = o.team === undefined ? '' : o.team;
  if (typeof team !== 'string' || (team !== '' && !ID.test(team)))
    problem(`.team must be an id like "support", got ${JSON.stringify(o.team)}`);
  const signature = f.optStr(smtp, 'smtp.signature');
  const signatureHtml = f.optStr(smtp, 'smtp.signatureHtml');
  // Relative to the working directory, like secret files; read at every send, so it must be there now.
  const logoName = f.optStr(smtp, 'smtp.logo');
  const logo = logoName === undefined ? undefined : path.resolve(logoName);
  if (logo !== undefined && !/\.(png|jpe?g|gif)$/i.test(logo))
    problem(`.smtp.logo must be a PNG, JPEG or GIF file, got ${JSON.stringify(logoName)}`);
  else if (logo !== undefined && !isReadableFile(logo)) problem(`.smtp.logo: cannot read ${logo}`);
  const replyFormat = smtp.replyFormat === undefined ? 'html' : smtp.replyFormat;
  if (replyFormat !== 'html' && replyFormat !== 'text')
    problem(`.smtp.replyFormat must be html or text, got ${JSON.stringify(smtp.replyFormat)}`);
  const providerFilesSent = parseSentLookup(smtp.providerFilesSent, problem);
  const deadlines = parseDeadlineSettings(o, problem);
  const teamAddresses = parseTeamAddresses(o.teamAddresses, problem);
  const mode = o.mode === undefined ? MAILBOX_MODES.live : o.mode;
  if (mode !== MAILBOX_MODES.live && mode !== MAILBOX_MODES.shadow)
    problem(`.mode must be ${MAILBOX_MODES.live} or ${MAILBOX_MODES.shadow}, got ${JSON.stringify(o.mode)}`);
  return {
    id,
    enabled: enabled === true,
    // Same account, same team by default: the isolation key stays the account.
    team: typeof team === 'string' && team ? team : `account:${user.toLowerCase()}`,
    imap: {
      host: f.optStr(imap, 'imap.host') ?? d.imap.host,
      port: f.port(imap, 'imap.port', d.imap.port),
      tls: f.bool(imap, 'imap.tls', d.imap.tls),
      user,
      password: imapAuth.password,
      oauth: imapAuth.oauth,
      folders: folderList,
      sentFolder: f.optStr(imap, 'imap.sentFolder') ?? d.imap.sentFolder,
      pollIntervalSeconds: f.int(imap, 'imap.pollIntervalSeconds', d.imap.pollIntervalSeconds, 5, 86_400),
    },
    smtp: {
      host: f.optStr(smtp, 'smtp.host') ?? d.smtp.host,
      port: f.port(smtp, 'smtp.port', d.smtp.port),
      tls: f.bool(smtp, 'smtp.tls', d.smtp.tls),
      user: smtpUser,
      password: smtpPassword,
      oauth: smtpAuth.oauth,
      timeoutMs: f.int(smtp, 'smtp.timeoutMs', d.smtp.timeoutMs, 500, 600_000),
      from: from ?? { name: '', address: '' },
      signature,
      ...(signatureHtml ? { signatureHtml } : {}),
      ...(logo ? { logo } : {}),
      ...(replyFormat === 'text' ? { replyFormat: 'text' as const } : {}),
      ...(providerFilesSent ? { providerFilesSent } : {}),
    },
    priorityRules: rules.rules,
    ...(teamAddresses.length > 0 ? { teamAddresses } : {}),
    ...(mode === MAILBOX_MODES.shadow ? { mode: MAILBOX_MODES.shadow } : {}),
    language: language === 'en' ? 'en' : 'de',
    ...(deadlines ? { deadlines } : {}),
  };
}

/** `true`, `false` or `{ graceSeconds, attempts }` (each optional); null when the provider does not file sent mail. */
function parseSentLookup(v: unknown, problem: (p: string) => void): SentFolderLookup | null {
  const name = 'smtp.providerFilesSent';
  if (v === undefined || v === false) return null;
  if (v === true) return { ...SENT_LOOKUP_DEFAULTS };
  const o = record(v);
  if (!o) {
    problem(`.${name} must be true, false or { graceSeconds, attempts }, got ${JSON.stringify(v)}`);
    return null;
  }
  const f = fields(problem);
  const graceSeconds = f.int(o, `${name}.graceSeconds`, SENT_LOOKUP_DEFAULTS.graceSeconds, 1, 30);
  const attempts = f.int(o, `${name}.attempts`, SENT_LOOKUP_DEFAULTS.attempts, 1, 10);
  if (graceSeconds * attempts > SENT_LOOKUP_MAX_SECONDS)
    problem(`.${name}: graceSeconds × attempts must be at most ${SENT_LOOKUP_MAX_SECONDS} seconds, got ${graceSeconds * attempts}`);
  return { graceSeconds, attempts };
}

function fields(problem: (p: string) => void) {
  const leaf = (name: string) => name.split('.').pop()!;
  return {
    str(o: Record<string, unknown>, name: string): string {
      const v = o[leaf(name)];
      if (typeof v === 'string' && v.trim()) return v.trim();
      problem(`.${name} is required`);
      return '';
    },
    optStr(o: Record<string, unknown>, name: string): string | undefined {
      const v = o[leaf(name)];
      if (v === undefined || v === null) return undefined;
      if (typeof v === 'string' && v.trim()) return v.trim();
      problem(`.${name} must be a non-empty string`);
      return undefined;
    },
    int(o: Record<string, unknown>, name: string, fallback: number, min: number, max: number): number {
      const v = o[leaf(name)];
      if (v === undefined) return fallback;
      if (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max) return v;
      problem(`.${name} must be a whole number between ${min} and ${max}, got ${JSON.stringify(v)}`);
      return fallback;
    },
    port(o: Record<string, unknown>, name: string, fallback: number): number {
      return this.int(o, name, fallback, 1, 65535);
    },
    bool(o: Record<string, unknown>, name: string, fallback: boolean): boolean {
      const v = o[leaf(name)];
      if (v === undefined) return fallback;
      if (typeof v === 'boolean') return v;
      problem(`.${name} must be true or false`);
      return fallback;
    },
    optSecret(o: Record<string, unknown>, name: string): SecretRef | undefined {
      const v = o[leaf(name)];
      if (v === undefined) return undefined;
      if (typeof v === 'string') {
        // A literal password in a versioned file would end up in git and backups.
        problem(`.${name} must reference the secret ({ env: VARIABLE } or { file: path }), not contain it`);
        return undefined;
      }
      const ref = parseSecretRef(v);
      if (!ref) problem(`.${name} must be { env: VARIABLE } or { file: path }`);
      return ref;
    },
  };
}

/**
 * A login's credentials: `password: { env | file }` as before, or `auth:` with `type: password`
 * (and `password`) or `type: oauth2` (src/mailboxes/mailbox-oauth.ts). Both at once is refused.
 */
function parseAuth(
  o: Record<string, unknown>,
  where: 'imap' | 'smtp',
  f: ReturnType<typeof fields>,
  problem: (p: string) => void,
): { password?: SecretRef; oauth?: OAuthSettings; failed?: boolean } {
  const password = f.optSecret(o, `${where}.password`);
  if (o.auth === undefined) return { password, failed: o.password !== undefined && !password };
  const auth = record(o.auth);
  if (!auth || (auth.type !== 'password' && auth.type !== 'oauth2')) {
    problem(`.${where}.auth must be { type: password, password: … } or { type: oauth2, provider: … }`);
    return { failed: true };
  }
  if (auth.type === 'password') {
    if (password) problem(`.${where}: give the password in ${where}.password or in ${where}.auth, not both`);
    const inner = f.optSecret(auth, `${where}.auth.password`);
    if (!inner && auth.password === undefined) problem(`.${where}.auth.password is required: { env: VARIABLE } or { file: path }`);
    return { password: inner ?? password, failed: !inner };
  }
  if (o.password !== undefined) problem(`.${where}.password and an OAuth2 ${where}.auth exclude each other`);
  const oauth = parseOAuthSettings(auth, `${where}.auth`, { problem, optSecret: (r, n) => f.optSecret(r, n) });
  return { oauth, failed: !oauth };
}

function rulesText(v: unknown): string {
  if (Array.isArray(v)) return v.map(String).join(';');
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** `"Name" <address>`, `Name <address>` or a bare address; null when it holds no valid address. */
export function parseFromAddress(text: string): { name: string; address: string } | null {
  if (!text) return null;
  // eslint-disable-next-line regexp/no-super-linear-backtracking -- the registry's own From line, written by the operator, not mail
  const m = /^\s*(?:"?([^"<]*)"?\s*)?<([^>]+)>\s*$/.exec(text);
  const from = m ? { name: (m[1] ?? '').trim(), address: (m[2] ?? '').trim() } : { name: '', address: text.trim() };
  return ADDRESS.test(from.address) ? from : null;
}

function record(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** An existing regular file (the logo), checked when the registry is read. */
function isReadableFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** `teamAddresses`: a list of addresses (or one comma-separated string), lower-cased; a bad one is a problem, never dropped. */
function parseTeamAddresses(value: unknown, problem: (p: string) => void): string[] {
  if (value === undefined) return [];
  const items = typeof value === 'string' ? value.split(/[,;]/) : Array.isArray(value) ? value : null;
  if (!items) {
    problem(`.teamAddresses must be a list of email addresses, got ${JSON.stringify(value)}`);
    return [];
  }
  const out: string[] = [];
  for (const item of items) {
    const a = typeof item === 'string' ? item.trim().toLowerCase() : '';
    if (typeof item === 'string' && item.trim() === '') continue;
    if (!ADDRESS.test(a)) problem(`.teamAddresses entry ${JSON.stringify(item)} is not an email address`);
    else out.push(a);
  }
  return [...new Set(out)];
}
