import { errorMessage } from '../platform/errors';
import type { OAuthMechanism } from './mailbox-oauth';
import { newImapClient, type ImapLogin } from './client.imap';
import { openSmtpConnection } from './connection.smtp';
import { oauthSmtpHandlers, oauthSmtpLogin } from './oauth.smtp';

/** One thing `email-rag mailboxes check` tried, and how it went. */
export interface ProbeStep {
  step: string;
  ok: boolean;
  detail: string;
}

export type ImapProbeSettings = ImapLogin;

/**
 * Logs in and lists the account's folders: every watched folder and the Sent folder must exist.
 * Read-only: nothing is opened for writing, created or fetched.
 */
export async function probeImap(settings: ImapProbeSettings, folders: string[], sentFolder: string): Promise<ProbeStep[]> {
  const where = `${settings.user}@${settings.host}:${settings.port}`;
  const client = newImapClient(settings, { connectMs: 10_000, socketMs: 30_000 });
  try {
    await client.connect();
  } catch (err) {
    return [{ step: 'imap login', ok: false, detail: `${where}: ${imapFailure(err)}` }];
  }
  try {
    const steps: ProbeStep[] = [{ step: 'imap login', ok: true, detail: where }];
    const existing = (await client.list()).map((f) => f.path);
    const has = (name: string) => existing.some((p) => p === name || (name.toUpperCase() === 'INBOX' && p.toUpperCase() === 'INBOX'));
    for (const folder of folders)
      steps.push({ step: `imap folder ${folder}`, ok: has(folder), detail: has(folder) ? 'exists' : 'does not exist on the server' });
    steps.push({
      step: `imap sent folder ${sentFolder}`,
      ok: has(sentFolder),
      detail: has(sentFolder) ? 'exists' : 'does not exist on the server (replies could not be filed)',
    });
    return steps;
  } catch (err) {
    return [{ step: 'imap folders', ok: false, detail: `${where}: ${errorMessage(err)}` }];
  } finally {
    await client.logout().catch(() => client.close());
  }
}

/** What a failed IMAP connect says, without the noise of the client's wrapper. */
function imapFailure(err: unknown): string {
  const e = err as { authenticationFailed?: boolean; responseText?: string; code?: string; message?: string };
  if (e.authenticationFailed)
    return `login refused${e.responseText ? ` (${e.responseText})` : ''}: check the user and the password or OAuth2 sign-in it references`;
  return `${e.code ? `${e.code}: ` : ''}${e.responseText ?? e.message ?? String(err)}`;
}

export interface SmtpProbeSettings {
  host: string;
  port: number;
  tls: boolean;
  user?: string;
  password?: string;
  /** OAuth2 instead of the password. */
  accessToken?: string;
  mechanism?: OAuthMechanism;
  timeoutMs: number;
}

/**
 * Connects, reads the greeting, says EHLO (STARTTLS when TLS is asked for on a port other than
 * 465) and, with a user, logs in; then QUIT. No MAIL FROM: nothing can be sent.
 */
export async function probeSmtp(settings: SmtpProbeSettings): Promise<ProbeStep[]> {
  const where = `${settings.host}:${settings.port}`;
  const { conn, step } = openSmtpConnection(settings, {
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: Math.min(settings.timeoutMs, 30_000),
    logger: false,
    customAuth: settings.accessToken ? oauthSmtpHandlers(settings) : undefined,
  });
  const steps: ProbeStep[] = [];
  try {
    try {
      await step((done) => conn.connect(() => done(null)));
      steps.push({ step: 'smtp connect', ok: true, detail: `${where} greeted, EHLO answered${conn.secure ? ' (TLS)' : ''}` });
    } catch (err) {
      steps.push({ step: 'smtp connect', ok: false, detail: `${where}: ${smtpFailure(err)}` });
      return steps;
    }
    if (settings.user) {
      try {
        const login = settings.accessToken
          ? oauthSmtpLogin(settings.user, settings.accessToken, settings.mechanism ?? 'XOAUTH2')
          : { user: settings.user, pass: settings.password ?? '' };
        await step((done) => conn.login(login, (err) => done(err)));
        steps.push({
          step: 'smtp auth',
          ok: true,
          detail: `logged in as ${settings.user}${settings.accessToken ? ` (${settings.mechanism ?? 'XOAUTH2'})` : ''}`,
        });
      } catch (err) {
        steps.push({ step: 'smtp auth', ok: false, detail: `${settings.user}: ${smtpFailure(err)}` });
      }
    }
    return steps;
  } finally {
    conn.quit();
    conn.close();
  }
}

function smtpFailure(err: unknown): string {
  const e = err as { code?: string; response?: string; message?: string };
  return `${e.code ? `${e.code}: ` : ''}${e.response ?? e.message ?? String(err)}`;
}
