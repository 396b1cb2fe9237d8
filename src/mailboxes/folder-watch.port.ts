/** What a watcher reports while it holds a folder open. */
export interface FolderWatchEvents {
  /** The folder is selected and the connection waits in IDLE: mail arriving from now on is noticed. */
  onConnected(): void;
  /**
   * The folder's message count grew: new mail is there to be polled. With `identify`, the new
   * messages' Message-IDs (null for one without) are read first and passed on; without them (not
   * asked, or the read failed) nothing is known of what arrived.
   */
  onNewMail(found?: NewMessages): void;
}

/** The messages that arrived in a watched folder, by their Message-ID header (null: none). */
export interface NewMessages {
  messageIds: Array<string | null>;
}

export interface FolderWatchOptions {
  /**
   * Read the new messages' Message-IDs before reporting them (the Sent folder's watch: the copies
   * of our own replies filed there must not wake a poll each).
   */
  identify?: boolean;
}

/**
 * Push notice of new mail in one folder of one account (IMAP IDLE). Implementations classify
 * failures like the Mailbox port: a lost connection is transient, a refused login or a missing
 * folder permanent.
 */
export interface FolderWatch {
  /**
   * Holds one connection to `folder` open until `signal` aborts (resolves) or the connection is
   * lost or refused (rejects). It never changes a message; with `identify` it reads the new
   * messages' Message-ID headers.
   */
  watch(folder: string, signal: AbortSignal, events: FolderWatchEvents, options?: FolderWatchOptions): Promise<void>;
}

/**
 * Which Message-IDs are replies this installation sent: their copies filed in the Sent folder are
 * not answers from outside, so noticing them wakes no poll (the poll's own look at the folder
 * skips them too).
 */
export interface OwnReplies {
  ours(messageIds: readonly string[]): Promise<ReadonlySet<string>>;
}
