import { FAILURE_TYPES } from '../platform/contract';
import path from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';
import type SMTPConnection from 'nodemailer/lib/smtp-connection';
import { EmailRagError, PermanentError, TransientError } from '../platform/errors';
import { REPLY_HEADERS } from './reply-headers';
import type { OAuthMechanism } from '../mailboxes/mailbox-oauth';
import type { AccessTokenSource } from '../mailboxes/access-tokens.port';
import {
  HandOverInDoubtError,
  type EnvelopeSeen,
  type MailSender,
  type OutgoingMail,
  type SendHooks,
  type SendResult,
  type SmtpPhase,
} from './mail-sender.port';
import { openSmtpConnection } from './connection.smtp';
import { HandOver } from './message-hand-over.smtp';
import { createSmtpSessions, type SmtpSession } from './smtp-sessions.smtp';
import { oauthSmtpHandlers, oauthSmtpLogin } from './oauth.smtp';

export interface SmtpSettings {
  host: string;
  port: number;
  tls: boolean;
  user?: string;
  password?: string;
  /** OAuth2 instead of the password: tokens for `user`, said with `mechanism` (XOAUTH2 by default). */
  tokens?: AccessTokenSource;
  mechanism?: OAuthMechanism;
  /** Silence on the connection that ends the session (also the wait for the reply after the final dot). */
  timeoutMs?: number;
}

const TRANSIENT_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNRESET', 'ECONNREFUSED', 'EPROTOCOL', 'ETLS']);

/** SMTP reply classes decide: 4xx may heal, 5xx will not; socket trouble is transient. */
export function classifySmtpError(err: unknown, phase?: SmtpPhase): Error {
  const e = err as { responseCode?: number; code?: string; response?: string; message?: string };
  const detail = `${e.response ?? e.message ?? String(err)}${phase ? ` (during ${phase})` : ''}`;
  let out: Error;
  if (typeof e.responseCode === 'number' && e.responseCode >= 400 && e.responseCode < 500) {
    out = new TransientError(`SMTP server deferred the message (${e.responseCode}): ${detail}`, FAILURE_TYPES.smtpTransient, {
      cause: err,
    });
  } else if (typeof e.responseCode === 'number' && e.responseCode >= 500) {
    out = new PermanentError(`SMTP server refused the message (${e.responseCode}): ${detail}`, FAILURE_TYPES.smtpRejected, { cause: err });
  } else if (e.code === 'EAUTH') {
    out = new PermanentError(`SMTP login refused: ${detail} (check SMTP_USER / SMTP_PASSWORD)`, FAILURE_TYPES.smtpAuth, { cause: err });
  } else if (e.code === 'EENVELOPE') {
    out = new PermanentError(`SMTP envelope refused: ${detail}`, FAILURE_TYPES.smtpEnvelope, { cause: err });
  } else if (e.code && TRANSIENT_CODES.has(e.code)) {
    out = new TransientError(`SMTP server unavailable: ${detail}`, FAILURE_TYPES.smtpUnavailable, { cause: err });
  } else {
    out = new TransientError(`SMTP send failed: ${detail}`, FAILURE_TYPES.smtpUnclear, { cause: err });
  }
  return phase ? Object.assign(out, { smtpPhase: phase }) : out;
}

/**
 * The finer phase a failure belongs to: the command nodemailer names on the error, or for a
 * broken connection the last command the client wrote; otherwise the phase we were in.
 */
function failedPhase(err: unknown, current: SmtpPhase, lastCommand: string): SmtpPhase {
  let command = String((err as { command?: unknown }).command ?? '');
  const timeout = String((err as { timeoutType?: unknown }).timeoutType ?? '');
  if (command === 'CONN' && current === 'connect') return timeout === 'CONNECT_TIMEOUT' ? 'connect' : 'greeting';
  if (command === 'CONN' || command === '') command = lastCommand;
  if (/^(EHLO|HELO|LHLO)$/.test(command)) return 'greeting';
  if (command === 'STARTTLS') return 'tls';
  if (/^AUTH/.test(command)) return 'login';
  if (command === 'MAIL FROM') return 'mail_from';
  if (command === 'RCPT TO') return 'rcpt';
  return current;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Logs in with the cached token; a refused token (revoked, or expired before its time) is
 * replaced once and the login said again on the same connection (RFC 4954 allows a new AUTH).
 */
async function oauthLogin(tokens: AccessTokenSource, login: (token: string) => Promise<unknown>): Promise<void> {
  const token = await tokens.get();
  try {
    await login(token);
  } catch (err) {
    if ((err as { code?: string }).code !== 'EAUTH') throw err;
    await login(await tokens.renew(token));
  }
}

/**
 * A reused session failed before a byte of the message was read (the server or the network ended
 * it while it waited): the message goes out over a new connection within the same send.
 */
class StaleSessionError extends Error {}

/** Compose once and send those exact bytes, so the Sent copy is what the server received. */
async function compose(mail: OutgoingMail): Promise<Buffer> {
  // Addresses are objects, never strings nodemailer would parse (a crafted string can redirect).
  return new MailComposer({
    from: mail.from,
    to: mail.to,
    subject: mail.subject,
    ...(mail.html === undefined
      ? { text: mail.text }
      : {
          // Given as alternatives so the plain part can say format=flowed (RFC 3676); quoted-printable
          // keeps the trailing spaces of its soft line breaks intact on any relay.
          alternatives: [
            {
              contentType: 'text/plain; charset=utf-8; format=flowed',
              content: mail.text,
              contentTransferEncoding: 'quoted-printable',
            },
            { contentType: 'text/html; charset=utf-8', content: mail.html, contentTransferEncoding: 'quoted-printable' },
          ],
          attachments: (mail.inlineImages ?? []).map((i) => ({ path: i.path, cid: i.cid, filename: path.basename(i.path) })),
        }),
    messageId: mail.messageId,
    inReplyTo: mail.inReplyTo,
    references: mail.references,
    date: new Date(),
    headers: { ...REPLY_HEADERS },
  })
    .compile()
    .build();
}

/**
 * Sends over SMTP. A session that carried a message is kept for the next one (smtp-sessions.smtp.ts):
 * a drain of approvals opens a connection, greets and logs in once per burst, not per message. A
 * kept session that turns out dead fails before the message (MAIL FROM, RCPT TO): nothing was
 * handed over, so the same send goes on over a new connection; any other failure closes the session.
 */
export function createSmtpSender(settings: SmtpSettings): MailSender {
  const timeoutMs = settings.timeoutMs ?? 60_000;
  const sessions = createSmtpSessions();

  function newSession(): SmtpSession {
    // The transaction log only tells which command went out last (never stored: AUTH is in it).
    const watcher = { lastCommand: '' };
    const commandWatcher = {
      debug(entry: { tnx?: string }, message?: unknown) {
        if (entry?.tnx === 'client' && typeof message === 'string')
          watcher.lastCommand = /^(MAIL FROM|RCPT TO|[A-Z]+)/.exec(message)?.[1] ?? '';
      },
    };
    const { conn, step } = openSmtpConnection(settings, {
      connectionTimeout: 15_000,
      greetingTimeout: 10_000,
      socketTimeout: timeoutMs,
      logger: commandWatcher as unknown as SMTPConnection.Options['logger'],
      transactionLog: true,
      customAuth: settings.tokens ? oauthSmtpHandlers(settings) : undefined,
    });
    const session: SmtpSession = { conn, step, watcher, messages: 0, openedAt: Date.now(), ended: false };
    sessions.watch(session);
    return session;
  }

  async function logIn(session: SmtpSession, enter: (phase: 'connect' | 'login') => Promise<void>): Promise<void> {
    const { conn, step } = session;
    await enter('connect');
    await step<void>((done) => conn.connect((err) => done(err)));
    if (settings.user && settings.tokens) {
      await enter('login');
      await oauthLogin(settings.tokens, (token) =>
        step<boolean>((done) => conn.login(oauthSmtpLogin(settings.user!, token, settings.mechanism ?? 'XOAUTH2'), done)),
      );
    } else if (settings.user) {
      await enter('login');
      await step<boolean>((done) => conn.login({ user: settings.user, pass: settings.password ?? '' }, done));
    }
  }

  /** One message over one session: a new one (connect, login) or one kept from an earlier message. */
  async function attempt(session: SmtpSession, fresh: boolean, mail: OutgoingMail, raw: Buffer, hooks: SendHooks): Promise<SendResult> {
    const { conn, step } = session;
    const envelope = { from: mail.from.address, to: [mail.to.address] };
    session.watcher.lastCommand = '';
    let phase: SmtpPhase = fresh ? 'connect' : 'mail_from';
    let hookError: unknown = null;
    const enter = async (next: Exclude<SmtpPhase, 'data_end'>) => {
      phase = next;
      try {
        await hooks.onPhase?.(next);
      } catch (err) {
        hookError = err;
        throw err;
      }
    };
    const handOver = new HandOver(raw, {
      beforeData: async () => {
        await enter('data');
        // What the connection really holds after MAIL FROM and RCPT TO, not what we asked for
        // (nodemailer's internal envelope: were it renamed, the check would refuse every send, loudly).
        const seen = (conn as unknown as { _envelope?: { from?: string; to?: string[]; accepted?: string[] } })._envelope;
        const check: EnvelopeSeen = { from: seen?.from ?? '', to: [...(seen?.to ?? [])], accepted: [...(seen?.accepted ?? [])] };
        await hooks.beforeData(check);
      },
      flushed: async () => {
        // Only the dot should be left to write once the hand-over is recorded: wait (bounded)
        // until the bytes left the stream and the socket's own buffer.
        const socket = conn._socket;
        for (let i = 0; i < 1000; i++) {
          const pending = handOver.readableLength + (socket ? socket.writableLength : 0);
          if (pending === 0) return;
          await sleep(5);
        }
      },
      beforeFinalDot: async () => {
        await hooks.beforeFinalDot();
        phase = 'data_end';
      },
    });
    try {
      if (fresh) await logIn(session, enter);
      await enter('mail_from');
      const info = await step<SMTPConnection.SentMessageInfo>((done) => conn.send(envelope, handOver, done));
      sessions.release(session);
      return { envelope: { from: envelope.from, to: [...info.accepted] }, response: info.response, raw };
    } catch (err) {
      conn.close();
      // A hook refused (lost claim, envelope mismatch, database down): its own error, not SMTP's.
      if (hookError ?? handOver.hookError) throw hookError ?? handOver.hookError;
      // The identity provider's verdict (MAILBOX_AUTH_EXPIRED), classified where it was caught.
      if (err instanceof EmailRagError) throw err;
      const code = (err as { responseCode?: unknown }).responseCode;
      const replied = typeof code === 'number';
      // Not a byte of the message was asked for: a session the server ended (or ends now, 421) while it waited.
      if (!fresh && !handOver.started && (!replied || code === 421)) throw new StaleSessionError((err as Error).message);
      if (handOver.dotReleased && !replied) {
        throw Object.assign(
          new HandOverInDoubtError(
            `the SMTP session broke after the final dot of ${mail.messageId}, before the server answered: ${(err as Error).message ?? String(err)}`,
            { cause: err },
          ),
          { smtpPhase: 'data_end' as const },
        );
      }
      // Before the dot nothing was handed over; after it, a 4xx/5xx reply is a definite refusal.
      throw classifySmtpError(err, handOver.dotReleased ? 'data_end' : failedPhase(err, phase, session.watcher.lastCommand));
    }
  }

  return {
    async send(mail: OutgoingMail, hooks: SendHooks): Promise<SendResult> {
      const raw = await compose(mail);
      const kept = sessions.take();
      if (kept) {
        try {
          return await attempt(kept, false, mail, raw, hooks);
        } catch (err) {
          if (!(err instanceof StaleSessionError)) throw err;
        }
      }
      return attempt(newSession(), true, mail, raw, hooks);
    },
    async close(): Promise<void> {
      sessions.close();
    },
  };
}
