/** What a watcher reports while it holds a folder open. */
export interface FolderWatchEvents {
  /** The folder is selected and the connection waits in IDLE: mail arriving from now on is noticed. */
  onConnected(): void;
  /** The folder's message count grew: new mail is there to be polled. */
  onNewMail(): void;
}

/**
 * Push notice of new mail in one folder of one account (IMAP IDLE). Implementations classify
 * failures like the Mailbox port: a lost connection is transient, a refused login or a missing
 * folder permanent.
 */
export interface FolderWatch {
  /**
   * Holds one connection to `folder` open until `signal` aborts (resolves) or the connection is
   * lost or refused (rejects). It never reads or changes a message.
   */
  watch(folder: string, signal: AbortSignal, events: FolderWatchEvents): Promise<void>;
}
