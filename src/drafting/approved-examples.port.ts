import type { DraftExample } from './drafter.port';

/** Which approved replies a draft may take as examples. */
export interface ExampleQuery {
  mailboxId: string;
  category: string;
  /** At most this many, newest decision first. */
  limit: number;
  /** Each example's length after masking (DRAFT_EXAMPLE_CHARS). */
  maxChars: number;
  /** The email being answered: its own earlier drafts are no example for it. */
  excludeEmailId?: string;
}

/**
 * Earlier replies of a mailbox in one category that a person approved unchanged or with a light
 * edit, as they were sent, masked for another customer's eyes (docs/guidance.md#examples).
 */
export interface ApprovedExamples {
  /** One read per draft; empty when the mailbox has none in that category. */
  recent(query: ExampleQuery): Promise<DraftExample[]>;
}
