/** What the sender/thread graph keeps of one email: who wrote to whom, in which thread. */
export interface GraphEmail {
  emailId: string;
  threadId: string;
  /** With the mailbox, the isolation key: retrieval never crosses accounts. */
  account?: string;
  mailbox: string;
  direction: 'in' | 'out';
  fromAddress: string;
  fromName: string;
  toAddresses: string[];
  subject: string;
  date: Date | null;
  /** The email this one answers, when it is known to the store; null otherwise. */
  inReplyToEmailId: string | null;
}

export interface RelatedQuery {
  emailId: string;
  fromAddress: string;
  account?: string;
  mailbox: string;
  /** False: the sender's own mail only, not their colleagues' (CONTEXT_INCLUDE_ORGANISATION). */
  includeOrganisation?: boolean;
}

export interface RelatedEmail {
  emailId: string;
  relation: 'same_sender' | 'same_organisation';
}

/** People, organisations, threads and emails as a graph, for context beyond text similarity. */
export interface ThreadGraph {
  /** Adds or updates the email and its edges; recording the same email again changes nothing. */
  record(e: GraphEmail): Promise<void>;
  /**
   * Recent inbound emails of the same sender, then of the sender's organisation (mail domain,
   * never a public provider), newest first, in the same account and mailbox only, never the
   * email itself; at most `limit` in all.
   */
  related(e: RelatedQuery, limit: number): Promise<RelatedEmail[]>;
  /**
   * Erasure: removes these emails, the people of these addresses, and every edge touching them.
   * Idempotent.
   */
  forget?(emailIds: string[], addresses: string[]): Promise<void>;
}
