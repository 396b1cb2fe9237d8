/** A reply of ours that a delivery status notification reports as not delivered. */
export interface BouncedSend {
  draftId: string;
  /** The email we answered: its workflow id is the correlation id of the send. */
  emailId: string;
  messageId: string;
  /** False when the send was already `bounced` (a retried or repeated bounce). */
  changed: boolean;
}

/** Links bounces to `send_attempts` rows by the Message-ID we gave the reply. */
export interface BounceLedger {
  /**
   * Marks our sent replies among these Message-IDs `bounced` (only `sent → bounced`); returns
   * them, including ones a previous bounce marked already. Unknown IDs are ignored.
   */
  markBounced(messageIds: string[]): Promise<BouncedSend[]>;
}
