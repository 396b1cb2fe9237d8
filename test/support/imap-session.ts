import { ImapFlow } from 'imapflow';

/** Where and as whom a test opens its own IMAP session (a mail client's view of the mailbox). */
export interface ImapLogin {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** A logged-in session of its own, not the adapter's. */
export async function openImap(login: ImapLogin): Promise<ImapFlow> {
  const c = new ImapFlow({
    host: login.host,
    port: login.port,
    secure: false,
    auth: { user: login.user, pass: login.password },
    logger: false,
  });
  await c.connect();
  return c;
}

/** Runs `fn` in a session of its own and logs out afterwards. */
export async function withImap<T>(login: ImapLogin, fn: (c: ImapFlow) => Promise<T>): Promise<T> {
  const c = await openImap(login);
  try {
    return await fn(c);
  } finally {
    await c.logout();
  }
}
