/**
 * Replies a person sent beside the assistant — from their own mail client, filed in a mailbox's
 * Sent folder, or from a team address whose copy reached the inbox — and the waiting emails they
 * answered (tables `outside_replies`, `outside_answers`).
 */

/** Where an outside reply was found. */
export const FOUND_VIA = { sentFolder: 'sent_folder', teamCopy: 'team_copy' } as const;
export type FoundVia = (typeof FOUND_VIA)[keyof typeof FOUND_VIA];

/** How an outside reply was tied to the mail it answers: its headers, or (headers broken) customer, subject and time. */
export const MATCHED_BY = { inReplyTo: 'in_reply_to', references: 'references', subject: 'subject' } as const;
export type MatchedBy = (typeof MATCHED_BY)[keyof typeof MATCHED_BY];

export interface OutsideReply {
  mailboxId: string;
  messageId: string;
  foundVia: FoundVia;
  /** The Sent folder and UID it was read from (`sent_folder` only). */
  folder?: string;
  uidValidity?: number;
  uid?: number;
  from: { name: string; address: string };
  /** Every recipient (To, Cc), lower-case. */
  to: string[];
  subject: string;
  inReplyTo: string | null;
  references: string[];
  text: string;
  sentAt: Date;
}

/** What answered one email, for the workflow, the send step's last check and the review page. */
export interface OutsideAnswer {
  emailId: string;
  matchedBy: MatchedBy;
  reply: OutsideReply;
  /** When the assistant noticed it. */
  seenAt: Date;
}

/** A mail that still waits for our answer (not ended, not imported history), as the matcher needs it. */
export interface WaitingMail {
  emailId: string;
  messageId: string | null;
  /** The customer's addresses (From and Reply-To), lower-case. */
  customer: string[];
  subject: string;
  /** When it was written (its Date header), else when it arrived. */
  receivedAt: Date;
}

export interface OutsideReplyStore {
  /**
   * Which of these Message-IDs are replies the assistant sent (or is sending), in one look: never
   * an outside answer.
   */
  oursAmong(messageIds: readonly string[]): Promise<ReadonlySet<string>>;
  /** Waiting mails of the mailbox whose Message-ID is one of `messageIds`. */
  waitingByMessageId(mailboxId: string, messageIds: string[]): Promise<WaitingMail[]>;
  /** Waiting mails of the mailbox from one of `addresses` that arrived before `before`. */
  waitingFrom(mailboxId: string, addresses: string[], before: Date): Promise<WaitingMail[]>;
  /**
   * Stores the reply (upsert by mailbox and Message-ID) and ties it to each answered email; the
   * ids of the emails tied now for the first time (a second look at the same reply ties none).
   */
  record(reply: OutsideReply, answers: Array<{ emailId: string; matchedBy: MatchedBy }>): Promise<string[]>;
  /** The first outside reply that answered this email, or null. */
  answerOf(emailId: string): Promise<OutsideAnswer | null>;
  /** Stored outside replies of the mailbox that name this Message-ID (tied to another mail when they were seen). */
  repliesNaming(mailboxId: string, messageId: string): Promise<OutsideReply[]>;
}
