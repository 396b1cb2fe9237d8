import * as nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import { PermanentError, TransientError } from '../lib/errors';
import type { MailSender, OutgoingMail, SendResult } from '../ports/mail-sender';

export interface SmtpSettings {
  host: string;
  port: number;
  tls: boolean;
  user?: string;
  password?: string;
}

const TRANSIENT_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNRESET', 'ECONNREFUSED', 'EPROTOCOL']);

/** SMTP reply classes decide: 4xx may heal, 5xx will not; socket trouble is transient. */
export function classifySmtpError(err: unknown): Error {
  const e = err as { responseCode?: number; code?: string; response?: string; message?: string };
  const detail = e.response ?? e.message ?? String(err);
  if (typeof e.responseCode === 'number') {
    if (e.responseCode >= 400 && e.responseCode < 500) {
      return new TransientError(`SMTP server deferred the message (${e.responseCode}): ${detail}`, 'SMTP_TRANSIENT', { cause: err });
    }
    if (e.responseCode >= 500) {
      return new PermanentError(`SMTP server refused the message (${e.responseCode}): ${detail}`, 'SMTP_REJECTED', { cause: err });
    }
  }
  if (e.code === 'EAUTH')
    return new PermanentError(`SMTP login refused: ${detail} (check SMTP_USER / SMTP_PASSWORD)`, 'SMTP_AUTH', { cause: err });
  if (e.code === 'EENVELOPE') return new PermanentError(`SMTP envelope refused: ${detail}`, 'SMTP_ENVELOPE', { cause: err });
  if (e.code && TRANSIENT_CODES.has(e.code)) {
    return new TransientError(`SMTP server unavailable: ${detail}`, 'SMTP_UNAVAILABLE', { cause: err });
  }
  return new TransientError(`SMTP send failed: ${detail}`, 'SMTP_UNCLEAR', { cause: err });
}

export function createSmtpSender(settings: SmtpSettings): MailSender {
  const transport = nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.tls && settings.port === 465,
    requireTLS: settings.tls && settings.port !== 465,
    auth: settings.user ? { user: settings.user, pass: settings.password ?? '' } : undefined,
    connectionTimeout: 15_000,
    greetingTimeout: 10_000,
    socketTimeout: 60_000,
  });
  return {
    async send(mail: OutgoingMail): Promise<SendResult> {
      // Compose once and send those exact bytes, so the Sent copy is what the server received.
      // Addresses are objects, never strings nodemailer would parse (a crafted string can redirect).
      const raw = await new MailComposer({
        from: mail.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        messageId: mail.messageId,
        inReplyTo: mail.inReplyTo,
        references: mail.references,
        date: new Date(),
        headers: { 'Auto-Submitted': 'auto-replied' },
      })
        .compile()
        .build();
      const envelope = { from: mail.from.address, to: mail.to.map((t) => t.address) };
      let info: { envelope: { from: string | false; to: string[] }; response: string; rejected: unknown[] };
      try {
        info = (await transport.sendMail({ envelope, raw })) as typeof info;
      } catch (err) {
        throw classifySmtpError(err);
      }
      if (info.rejected.length > 0) {
        throw new PermanentError(`SMTP server refused recipients: ${JSON.stringify(info.rejected)}`, 'SMTP_REJECTED');
      }
      return { envelope: { from: info.envelope.from || '', to: info.envelope.to }, response: info.response, raw };
    },
    async close(): Promise<void> {
      transport.close();
    },
  };
}
