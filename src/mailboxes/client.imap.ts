import { ImapFlow } from 'imapflow';

/** Where and as whom an IMAP session logs in. */
export interface ImapLogin {
  host: string;
  port: number;
  tls: boolean;
  user: string;
  /** Password login; or `accessToken` for OAuth2 (imapflow then says OAUTHBEARER when the server offers it, else XOAUTH2). */
  password?: string;
  accessToken?: string;
}

/**
 * A not yet connected imapflow session with our timeouts. The worker waits longer on a slow
 * server than an operator's `mailboxes check` does.
 */
export function newImapClient(
  login: ImapLogin,
  timeouts: {
    connectMs: number;
    socketMs: number;
    /** A watcher's session: IDLE restarted this often, and entered as soon as the folder is open. */
    idleRestartMs?: number;
    idleAtOnce?: boolean;
  },
): ImapFlow {
  const client = new ImapFlow({
    host: login.host,
    port: login.port,
    secure: login.tls,
    auth: login.accessToken ? { user: login.user, accessToken: login.accessToken } : { user: login.user, pass: login.password ?? '' },
    logger: false,
    connectionTimeout: timeouts.connectMs,
    greetingTimeout: 10_000,
    socketTimeout: timeouts.socketMs,
    ...(timeouts.idleRestartMs ? { maxIdleTime: timeouts.idleRestartMs } : {}),
    ...(timeouts.idleAtOnce ? { autoIdleDelay: 0 } : {}),
  });
  // imapflow emits 'error' on socket trouble; without a listener it would end the process.
  client.on('error', () => undefined);
  return client;
}
