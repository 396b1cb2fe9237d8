import type { DraftContextItem } from './drafter';

export interface IndexableEmail {
  emailId: string;
  threadId: string;
  /**
   * The mail account: with the mailbox, the isolation key of every index entry. Left out, the
   * composite index fills in the worker's account.
   */
  account?: string;
  mailbox: string;
  /** `knowledge`: a passage of the knowledge folder, not mail. */
  direction: 'in' | 'out' | 'knowledge';
  fromAddress: string;
  /** For the sender/thread graph; optional for indexes that do not need them. */
  fromName?: string;
  /** For outgoing mail: the correspondent it went to (first address). */
  toAddresses?: string[];
  subject: string;
  text: string;
  date: Date | null;
}

/**
 * Whose entries a retrieval may return (docs/pipeline.md, "Whose data a draft may see"). Built once by
 * `contextScope` and enforced inside every index, in its own query language.
 */
export interface ContextScope {
  account: string;
  mailbox: string;
  /** The address the reply goes to, lower case. */
  correspondent: string;
  /** Their organisation's mail domain when organisation context is allowed (never a public provider). */
  organisation: string | null;
  /** Our replies to other correspondents: masked knowledge, or left out. */
  reuseReplies: 'masked' | 'off';
}

/** Makes emails findable for retrieval and returns context for a new email. */
export interface VectorIndex {
  readonly name: string;
  index(email: IndexableEmail): Promise<void>;
  /**
   * The same thread, the correspondent's other mail, knowledge passages and (masked) our replies
   * to others, never the email itself and never another correspondent's inbound mail. Without a
   * scope, the one `contextScope(email)` gives with the default settings.
   */
  retrieve(email: IndexableEmail, limit: number, scope?: ContextScope): Promise<DraftContextItem[]>;
  /** Removes every entry of one source (a knowledge file that was deleted or changed). */
  remove?(sourceId: string): Promise<void>;
}
