/** What the sender/thread graph keeps of one email: who wrote to whom, in which thread. */
export interface GraphEmail {
  emailId: string;
  threadId: string;
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

export interface RelatedEmail {
  emailId: string;
  relation: 'same_sender' | 'same_organisation';
}

/** People, organisations, threads and emails as a graph, for context beyond text similarity. */
export interface ThreadGraph {
  /** Adds or updates the email and its edges; recording the same email again changes nothing. */
  record(e: GraphEmail): Promise<void>;
  /**
   * Recent emails of the same sender, then of the sender's organisation (mail domain), newest
   * first, in the same mailbox only, never the email itself; at most `limit` in all.
   */
  related(e: { emailId: string; fromAddress: string; mailbox: string }, limit: number): Promise<RelatedEmail[]>;
}
