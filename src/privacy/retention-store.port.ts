/** What the retention purge removes, one kind at a time (RETENTION_*). */
export type RetentionKind = 'raw_mail' | 'bodies' | 'passages' | 'audit' | 'access_log' | 'replay';

/** The relational store's side of retention: one bounded batch per call, each its own transaction. */
export interface RetentionStore {
  /**
   * Purges up to `limit` expired items of `kind` older than `cutoff`; returns how many (a count
   * below `limit` means nothing expired is left). Passages return the email ids whose passages
   * expired instead, for every index to forget (`forget`), and purge nothing themselves.
   */
  purgeBatch(kind: Exclude<RetentionKind, 'passages'>, cutoff: Date, limit: number): Promise<number>;
  /** Email ids (and our sent replies' index ids) whose passages expired: correspondents with no open email. */
  expiredPassageSources(cutoff: Date, limit: number): Promise<string[]>;
  /** How many items of `kind` have expired (a dry run). */
  countExpired(kind: RetentionKind, cutoff: Date): Promise<number>;
}
