import type { MailboxEntry } from './mailbox-registry';
import type { MailSender } from './mail-sender.port';
import type { ImapConnection } from './imap-connection.port';

/** One registered mailbox with the adapters that speak for it. */
export interface ServedMailbox {
  entry: MailboxEntry;
  /** IMAP access with this mailbox's account; opened on first use. */
  imap: ImapConnection;
  /** SMTP with this mailbox's server and credentials; replies go out with `entry.smtp.from`. */
  sender: MailSender;
}

/**
 * Every mailbox of the registry by id, so any worker serves any mailbox. Secrets are read when a
 * mailbox's adapters are first built; a missing secret or a bad account fails only that mailbox.
 */
export interface MailboxDirectory {
  /** Enabled and disabled entries, in registry order. */
  list(): MailboxEntry[];
  /**
   * The mailbox with this id. Throws a permanent `UNKNOWN_MAILBOX` error for an id the registry does
   * not have (removed from the file while its mail was in flight): a person must decide.
   */
  get(id: string): ServedMailbox;
  close(): Promise<void>;
}
