/**
 * Makes a mailbox's poll run now: the watcher's way into the pipeline, so push intake and the
 * schedule share one poll path (watermark, backpressure, idempotent starts).
 */
export interface PollTrigger {
  /**
   * Starts the mailbox's poll run now, or once right after the run in progress (`queued`), so
   * mail that arrived during a run is not left for the next interval. Throws a permanent error
   * when the mailbox has no poll schedule (not installed).
   */
  wake(mailboxId: string): Promise<'started' | 'queued'>;
}
