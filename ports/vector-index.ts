import type { DraftContextItem } from './drafter';

export interface IndexableEmail {
  emailId: string;
  threadId: string;
  mailbox: string;
  direction: 'in' | 'out';
  fromAddress: string;
  /** For the sender/thread graph; optional for indexes that do not need them. */
  fromName?: string;
  toAddresses?: string[];
  subject: string;
  text: string;
  date: Date | null;
}

/** Makes emails findable for retrieval and returns context for a new email. */
export interface VectorIndex {
  readonly name: string;
  index(email: IndexableEmail): Promise<void>;
  /** Similar past passages and the same thread's history, excluding the email itself. */
  retrieve(email: IndexableEmail, limit: number): Promise<DraftContextItem[]>;
}
