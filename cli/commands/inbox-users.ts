import { createInterface } from 'node:readline';
import { createMariaDbInboxUsers, INBOX_ROLES, type InboxRole } from '../../adapters/mariadb/inbox-users';
import type { Config } from '../../lib/config';
import { hashPassword } from '../../adapters/bcrypt-password';
import { CliError, connectDatabase } from '../context';

const MIN_PASSWORD = 10;

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

export async function inboxUsersAdd(config: Config, name: string, role: string, password: string): Promise<string> {
  if (!(INBOX_ROLES as readonly string[]).includes(role)) throw new CliError(`--role must be ${INBOX_ROLES.join(' or ')}`, 2);
  if (!/^[\p{L}\p{N}._@-]{1,191}$/u.test(name)) throw new CliError('a user name is 1–191 letters, digits or . _ @ -', 2);
  if (password.length < MIN_PASSWORD) throw new CliError(`the password needs at least ${MIN_PASSWORD} characters`, 2);
  const pool = await connectDatabase(config);
  try {
    const how = await createMariaDbInboxUsers(pool).upsert(name, await hashPassword(password), role as InboxRole);
    return `inbox user ${name} (${role}) ${how}`;
  } finally {
    await pool.end();
  }
}

export async function inboxUsersDisable(config: Config, name: string): Promise<string> {
  const pool = await connectDatabase(config);
  try {
    if (!(await createMariaDbInboxUsers(pool).disable(name))) throw new CliError(`no enabled inbox user ${name}`);
    return `inbox user ${name} disabled`;
  } finally {
    await pool.end();
  }
}
