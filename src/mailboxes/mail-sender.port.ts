import { FAILURE_TYPES } from '../platform/contract';
import { EmailRagError } from '../platform/errors';

export interface AddressObject {
  name: string;
  address: string;
}

export interface OutgoingMail {
  from: AddressObject;
  /** The one recipient, as an object: a string would be parsed as RFC 5322 and could name others. */
  to: AddressObject;
  subject: string;
  text: string;
  /**
   * The HTML alternative of `text` (generated from it, src/email/send/reply-layout.ts): with it the message is
   * multipart/alternative and `text` is format=flowed.
   */
  html?: string;
  /** Images the HTML shows by `cid:` (the mailbox's logo), read from these files. */
  inlineImages?: Array<{ cid: string; path: string }>;
  /** Deterministic, derived from the workflow id: the idempotency key a server and a mailbox can see. */
  messageId: string;
  inReplyTo?: string;
  references?: string[];
}

export interface SendResult {
  /** The envelope the server accepted (what was really sent, not what headers claim). */
  envelope: { from: string; to: string[] };
  response: string;
  /** The exact bytes handed to the server, for the Sent folder. */
  raw: Buffer;
}

import { SMTP_PHASES, type SmtpPhase } from './mailboxes.contract';

export { SMTP_PHASES, type SmtpPhase };

/** What the session is about to send the message to, known before the first byte of it. */
export interface EnvelopeSeen {
  /** MAIL FROM and RCPT TO as the SMTP client wrote them. */
  from: string;
  to: string[];
  /** The recipients the server answered with 2xx. */
  accepted: string[];
}

export interface SendHooks {
  /**
   * Awaited as the session enters the phases it controls (connect, login, mail_from, data); a
   * throw aborts the session. Failures name finer phases (greeting, tls, rcpt) in `smtpPhase`.
   */
  onPhase?(phase: Exclude<SmtpPhase, 'data_end'>): Promise<void>;
  /** Awaited after the server accepted the envelope and asked for the message; a throw aborts before the first byte. */
  beforeData(envelope: EnvelopeSeen): Promise<void>;
  /**
   * Awaited when every byte but the final dot was written. Record here that the hand-over begins
   * (after it the outcome may be unknown); a throw aborts the session without the dot.
   */
  beforeFinalDot(): Promise<void>;
}

/**
 * The session broke after the final dot and before the server's reply (timeout, reset, crash of
 * the connection): the message may or may not have been accepted. Never retried automatically.
 */
export class HandOverInDoubtError extends EmailRagError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, FAILURE_TYPES.smtpInDoubt, 'unclear', options);
  }
}

/**
 * Hands one message to an SMTP server, phase by phase. Failures before the final dot are safe to
 * retry and classified: 4xx and socket trouble transient, 5xx permanent (TransientError /
 * PermanentError, with the failing phase in `smtpPhase`). A 4xx/5xx reply to the message itself
 * is a definite refusal, classified the same way. A broken session after the final dot throws
 * HandOverInDoubtError.
 */
export interface MailSender {
  send(mail: OutgoingMail, hooks: SendHooks): Promise<SendResult>;
  close(): Promise<void>;
}

/** The phase a send failure happened in, when the sender knew it. */
export function smtpPhaseOf(err: unknown): SmtpPhase | null {
  const phase = (err as { smtpPhase?: unknown } | null)?.smtpPhase;
  return typeof phase === 'string' && (SMTP_PHASES as readonly string[]).includes(phase) ? (phase as SmtpPhase) : null;
}
