export interface AddressObject {
  name: string;
  address: string;
}

export interface OutgoingMail {
  from: AddressObject;
  to: AddressObject[];
  subject: string;
  text: string;
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

/** Hands one message to an SMTP server. Classifies 4xx as transient and 5xx as permanent. */
export interface MailSender {
  send(mail: OutgoingMail): Promise<SendResult>;
  close(): Promise<void>;
}
