import { createInterface } from 'node:readline';
import { createMariaDbInboxUsers, INBOX_ROLES, type InboxRole } from './inbox-users.mariadb';
import type { Config } from '../platform/config';
import { hashPassword } from './password.bcrypt';
import { createMariaDbAuditLog } from '../platform/audit-log.mariadb';
import { createMariaDbLoginThrottle } from './login-throttle.mariadb';
import type { Pool } from '../platform/pool.mariadb';
import { createMariaDbSessionStore } from './session-store.mariadb';
import { REVIEW_INBOX_AUDIT_EVENTS } from './review-inbox.contract';
import { passwordProblem } from './password-rules';
import { accountKey } from './login-guard';
import { CliError, connectDatabase } from '../platform/cli-context';
import { text, type CliArgs, type CliCommand, type CliOptions } from '../platform/cli-command';
import { runInbox } from './server';

/** Ends every open inbox session of `name` (in all inbox processes at once), with an audit row. */
async function endSessions(pool: Pool, name: string, reason: string): Promise<number> {
  const ended = await createMariaDbSessionStore(pool, { idleMinutes: 60, maxHours: 12 }).endSessionsOf(name);
  await createMariaDbAuditLog(pool).record({
    emailId: null,
    correlationId: `inbox-user-${name}`.slice(0, 191),
    eventType: REVIEW_INBOX_AUDIT_EVENTS.sessionsEnded,
    actor: 'email-rag inbox users',
    message: `${ended} inbox session(s) of ${name} ended: ${reason}`,
    details: { reason, sessions: ended },
  });
  return ended;
}

/** The password from stdin: the first line of a pipe, or typed at a prompt (not echoed). */
export async function readPassword(input: NodeJS.ReadStream = process.stdin): Promise<string> {
  if (!input.isTTY) {
    const chunks: Buffer[] = [];
    for await (const c of input) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
  }
  process.stderr.write('password: ');
  const rl = createInterface({ input, terminal: true });
  // Keep what is typed off the screen.
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => undefined;
  const line = await new Promise<string>((resolve) => rl.once('line', resolve));
  rl.close();
  process.stderr.write('\n');
  return line;
}

/**
 * `ifNew`: leave an existing user as it is. A deployment's init names its first operator on every
 * start; a password that operator changed since must not be set back to the one in the secret file.
 */
export async function inboxUsersAdd(
  config: Config,
  name: string,
  role: string,
  password: string,
  opts: { ifNew?: boolean } = {},
): Promise<string> {
  if (!(INBOX_ROLES as readonly string[]).includes(role)) throw new CliError(`--role must be ${INBOX_ROLES.join(' or ')}`, 2);
  if (!/^[\p{L}\p{N}._@-]{1,191}$/u.test(name)) throw new CliError('a user name is 1–191 letters, digits or . _ @ -', 2);
  const problem = passwordProblem(name, password);
  if (problem) throw new CliError(problem, 2);
  const pool = await connectDatabase(config);
  try {
    if (opts.ifNew && (await createMariaDbInboxUsers(pool).find(name))) return `inbox user ${name} exists: left as it is (--if-new)`;
    const how = await createMariaDbInboxUsers(pool).upsert(name, await hashPassword(password), role as InboxRole);
    if (how === 'added') return `inbox user ${name} (${role}) added`;
    // A new password or role: whoever holds an open session signs in again with it.
    const ended = await endSessions(pool, name, 'password or role set');
    return `inbox user ${name} (${role}) updated; ${ended} open session(s) ended`;
  } finally {
    await pool.end();
  }
}

export async function inboxUsersDisable(config: Config, name: string): Promise<string> {
  const pool = await connectDatabase(config);
  try {
    if (!(await createMariaDbInboxUsers(pool).disable(name))) throw new CliError(`no enabled inbox user ${name}`);
    const ended = await endSessions(pool, name, 'user disabled');
    return `inbox user ${name} disabled; ${ended} open session(s) ended`;
  } finally {
    await pool.end();
  }
}

/** `email-rag inbox users sign-out NAME`: ends the person's open sessions everywhere. */
export async function inboxUsersSignOut(config: Config, name: string): Promise<string> {
  const pool = await connectDatabase(config);
  try {
    const ended = await endSessions(pool, name, 'signed out by an operator');
    return `${ended} open inbox session(s) of ${name} ended`;
  } finally {
    await pool.end();
  }
}

/** `email-rag inbox users unlock NAME`: lifts the sign-in delay or lock of a name before its time. */
export async function inboxUsersUnlock(config: Config, name: string): Promise<string> {
  const pool = await connectDatabase(config);
  try {
    const had = await createMariaDbLoginThrottle(pool).clearAccount(accountKey(name));
    return had ? `sign-in failures of ${name} cleared` : `${name} had no sign-in failures`;
  } finally {
    await pool.end();
  }
}

/** `email-rag inbox users reset-password NAME`: a new password (same rules as `add`); ends the user's sessions and lifts a sign-in lock. */
export async function inboxUsersResetPassword(config: Config, name: string, password: string): Promise<string> {
  const problem = passwordProblem(name, password);
  if (problem) throw new CliError(problem, 2);
  const pool = await connectDatabase(config);
  try {
    const users = createMariaDbInboxUsers(pool);
    const user = await users.find(name);
    if (!user) throw new CliError(`no inbox user ${name}`);
    await users.setPassword(user.name, await hashPassword(password));
    const ended = await endSessions(pool, user.name, 'password reset');
    await createMariaDbLoginThrottle(pool).clearAccount(accountKey(user.name));
    return `password of inbox user ${user.name} reset; ${ended} open session(s) ended${user.disabledAt ? ' (the user stays disabled)' : ''}`;
  } finally {
    await pool.end();
  }
}

const GROUP = 'usage: email-rag inbox | inbox users add NAME --role R | inbox users disable|reset-password|sign-out|unlock NAME';

/** `inbox users <action> NAME`. */
function userCommand(
  action: string,
  usage: string,
  run: (config: Config, name: string, values: CliArgs['values']) => Promise<string>,
  options?: CliOptions,
): CliCommand<string> {
  return {
    name: `inbox users ${action}`,
    usage,
    ...(options ? { options } : {}),
    accepts: (rest) => rest.length === 1 && !!rest[0],
    run: (ctx, { positionals, values }) => run(ctx.config(), positionals[0]!, values),
  };
}

export const inboxCommands: CliCommand[] = [
  {
    name: 'inbox',
    usage: 'inbox                                   run the review inbox web app on INBOX_PORT (see docs/review-inbox.md)',
    run: (ctx, { positionals }) => (positionals.length === 0 ? runInbox(ctx.config()) : Promise.reject(ctx.usageError(GROUP))),
  } satisfies CliCommand<void>,
  userCommand(
    'add',
    `inbox users add NAME --role reviewer|operator [--if-new]
                                        add or update an inbox user; the password is read from stdin;
                                        --if-new: leave an existing user as it is`,
    async (config, name, values) =>
      inboxUsersAdd(config, name, text(values, 'role') ?? 'reviewer', await readPassword(), { ifNew: values['if-new'] === true }),
    { role: { type: 'string' }, 'if-new': { type: 'boolean', default: false } },
  ),
  userCommand('disable', 'inbox users disable NAME                disable an inbox user (ends their open sessions)', inboxUsersDisable),
  userCommand(
    'reset-password',
    "inbox users reset-password NAME         a new password (read from stdin); ends the user's sessions",
    async (config, name) => inboxUsersResetPassword(config, name, await readPassword()),
  ),
  userCommand(
    'sign-out',
    'inbox users sign-out NAME               end the open review-inbox sessions of a user everywhere',
    inboxUsersSignOut,
  ),
  userCommand('unlock', 'inbox users unlock NAME                 lift the sign-in delay or lock of a name', inboxUsersUnlock),
];
