/**
 * Asking a spam filter about a message (SpamAssassin's spamd, TRIAGE_SPAMD): the filter's score,
 * its own threshold and the rules that fired. Only the adapter (spam-scorer.spamd.ts) talks to it.
 */
export interface SpamScore {
  score: number;
  /** The filter's own "required" score (its configuration); triage uses TRIAGE_SPAM_SCORE. */
  required: number;
  /** The names of the rules that fired, as the filter reports them. */
  rules: string[];
}

export interface SpamScorer {
  /** Where it asks, for messages and audit rows (`spamd 127.0.0.1:783`). */
  readonly describe: string;
  /**
   * The score of one raw message; null when the message is too large to scan (the filter's client
   * skips such mail too). Rejects when the filter cannot be reached or answers wrongly.
   */
  score(raw: Buffer): Promise<SpamScore | null>;
}

/** What a person decided a message is: the filter's Bayes database learns it. */
export type SpamClass = 'spam' | 'ham';

export interface SpamLearner {
  readonly describe: string;
  /**
   * Teaches the filter one message as spam or ham. `learned`: it changed the database; `known`: the
   * filter had learned this message as this class already (a retry, a second release), nothing changed.
   * Rejects when the filter cannot be reached, refuses (no learning allowed) or answers wrongly.
   */
  learn(raw: Buffer, cls: SpamClass): Promise<'learned' | 'known'>;
}
