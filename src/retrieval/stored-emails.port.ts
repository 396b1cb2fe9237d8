/**
 * What retrieval reads of the emails the pipeline stored: the text of an email the thread graph
 * names, and whom a sent reply went to. The email feature's message store provides it; retrieval
 * names only the fields it reads, so it depends on no other feature's records.
 */
export interface StoredEmail {
  id: string;
  subject: string;
  text: string;
  from: { name: string; address: string } | null;
  replyTo: { name: string; address: string } | null;
  /** The IMAP folder it came from (null for an imported file). */
  mailbox: string | null;
  /** The registry entry it came in through. */
  mailboxId: string;
}

export interface StoredEmails {
  getEmail(emailId: string): Promise<StoredEmail | null>;
}
