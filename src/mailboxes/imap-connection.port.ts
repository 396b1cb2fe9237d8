import type { Priority } from '../triage';

/** A message as the mailbox lists it: enough to decide whether to download it. */
export interface MailboxMessageRef {
  uid: number;
  /** RFC 822 size as the server reports it, before any download. */
  size: number;
  /** From the envelope and a few headers, enough to prioritise before the body is fetched. */
  from: string | null;
  subject: string;
  headerPriority: Priority;
  /** Display name of the sender, Message-ID and In-Reply-To from the envelope, for the Web UI summary. */
  fromName?: string | null;
  messageId?: string | null;
  inReplyTo?: string | null;
}

export interface MailboxListing {
  uidValidity: number;
  /** Highest UID in the mailbox now (0 when empty). */
  highestUid: number;
  messages: MailboxMessageRef[];
}

/** A folder's UIDVALIDITY and next UID at one moment: every message that arrives later has a UID of at least `uidNext`. */
export interface FolderMark {
  uidValidity: string;
  uidNext: number;
}

/** Where a message was found: the folder, its UIDVALIDITY and the message's UID. */
export interface FoundMessage {
  folder: string;
  uidValidity: string;
  uid: number;
}

/**
 * Read and append access to one IMAP account. Implementations classify failures:
 * network trouble is transient, a vanished message or a changed UIDVALIDITY is permanent.
 */
export interface ImapConnection {
  /** Messages with a UID above `afterUid`, oldest first, at most `limit`. */
  listSince(mailbox: string, afterUid: number, limit: number): Promise<MailboxListing>;
  /**
   * The raw RFC 822 bytes of one message. Refuses (TooLargeError, code `TOO_LARGE`) before
   * downloading when the server-side size exceeds `maxBytes`.
   */
  fetchRaw(ref: { mailbox: string; uidValidity: number; uid: number; maxBytes: number }): Promise<Buffer>;
  /**
   * Where a folder stands now: taken before a reply is handed to SMTP, it bounds where a copy of
   * that reply can be (a server that files sent mail itself does so after the hand-over). With
   * `maxAgeMs`, a mark this connection read at most that long ago may answer instead: an earlier
   * mark only widens the search after it (a few more messages), it never misses a later copy.
   */
  folderMark(mailbox: string, opts?: { maxAgeMs?: number }): Promise<FolderMark>;
  /**
   * Appends a sent message to a folder unless a message with that Message-ID is already there.
   * With `since`, only messages that arrived after that mark are looked at (the search costs the
   * server the folder's size otherwise); a folder recreated since (another UIDVALIDITY) is searched whole.
   */
  appendOnce(mailbox: string, raw: Buffer, messageId: string, since?: FolderMark): Promise<'appended' | 'present'>;
  /**
   * The UID of a message with this Message-ID in a folder, or null when there is none (a missing
   * folder holds none). With `since`, as for `appendOnce`. Failures are classified, never swallowed.
   */
  findByMessageId(mailbox: string, messageId: string, since?: FolderMark): Promise<FoundMessage | null>;
  close(): Promise<void>;
}
