/**
 * How far each mailbox folder was polled (`mailbox_watermarks`): the highest UID seen per UIDVALIDITY.
 */
export interface Watermark {
  uidValidity: number;
  lastUid: number;
  /** UIDs up to here were in the mailbox when it was connected: indexed as history, never answered. */
  historyUntilUid: number;
}

/** The last UID seen per account and mailbox. */
export interface WatermarkStore {
  get(account: string, mailbox: string): Promise<Watermark | null>;
  /** Only ever moves forward within one UIDVALIDITY, so a late write cannot rewind it. */
  advance(account: string, mailbox: string, mark: Watermark): Promise<void>;
}
