/**
 * One piece of retrieved context. Where it may come from is a privacy rule (see docs/pipeline.md,
 * "Whose data a draft may see"): the same correspondent, the knowledge folder, or our own
 * replies to others with personal data masked.
 */
export interface DraftContextItem {
  /**
   * Traces the item to its source: an email id (our sent replies: `<email id>:draft:<n>:sent`)
   * or `knowledge:<relative path>#<passage n>` for the knowledge folder, or
   * `attachment:<file>#p<page>` for a page of the answered email's attachment.
   */
  sourceId: string;
  /**
   * `thread`: the same conversation; `similar` / `sender`: the correspondent's (or their
   * organisation's) other mail; `knowledge`: the knowledge folder; `own_reply`: our reply to
   * another correspondent, personal data masked; `attachment`: text read from a file attached to
   * the email being answered (`sourceId` `attachment:<file>#p<page>`).
   */
  kind: 'thread' | 'similar' | 'sender' | 'knowledge' | 'own_reply' | 'attachment';
  text: string;
  /** A short human label: the subject, or the knowledge file's path. */
  title?: string;
  /**
   * How retrieval found the item, when it ranked it: `fused` is the item's reciprocal-rank-fusion
   * score, `cosine` its vector similarity to the new mail (given whenever its vector was compared,
   * also for a word match below the vectors' floor; absent without vectors),
   * `wordRank` / `vectorRank` its 1-based rank by shared words and by vectors.
   */
  match?: { fused: number; cosine?: number; wordRank?: number; vectorRank?: number };
  /** Another open mail of the same case as the email being answered (one reply may answer both). */
  openInCase?: boolean;
  /** Retrieved for that other open mail's question (its `sourceId`), not for the email being answered. */
  forEmailId?: string;
}

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
  /** Text read from the email's attachments, one entry per page, cited `attachment:<file>#p<page>`. */
  attachments?: ReadonlyArray<{ sourceId: string; text: string }>;
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

/**
 * An email's passages with their vectors, computed once (one embedder call) and handed to every
 * index that stores vectors, so the MariaDB rows and Qdrant's points hold the same vectors.
 */
export interface EmbeddedPassages {
  /** The embedding model: vectors of different models are never compared. */
  model: string;
  /** The email's passages (`splitPassages` of subject and text), in order. */
  passages: string[];
  /** One per passage; null when the embedder failed: the passages are stored without vectors. */
  vectors: number[][] | null;
}

/** The new email's probe as a vector, embedded once (kind `query`) for every index. */
export interface ProbeVector {
  model: string;
  /** Null when the embedder failed: retrieval ranks by words only. */
  vector: number[] | null;
}

/** Makes emails findable for retrieval and returns context for a new email. */
export interface VectorIndex {
  readonly name: string;
  /**
   * `embedded`: vectors already computed for this email (the composite's one embedder call);
   * without it an index with an embedder of its own embeds the passages itself.
   */
  index(email: IndexableEmail, embedded?: EmbeddedPassages): Promise<void>;
  /**
   * The same thread, the correspondent's other mail, knowledge passages and (masked) our replies
   * to others, never the email itself and never another correspondent's inbound mail. Without a
   * scope, the one `contextScope(email)` gives with the default settings. `probe`: the email
   * already embedded (`retrievalProbe`); without it an index with an embedder embeds it itself.
   */
  retrieve(email: IndexableEmail, limit: number, scope?: ContextScope, probe?: ProbeVector): Promise<DraftContextItem[]>;
  /**
   * Erasure: removes every entry of these emails (and of our sent replies to them,
   * `<email id>:draft:<n>:sent`) and, with `correspondent`, every entry whose correspondent is that
   * address. Idempotent: forgetting what is gone changes nothing.
   */
  forgetEmails?(emailIds: string[], correspondent?: string): Promise<void>;
  /** Removes every entry of one source (a knowledge file that was deleted or changed). */
  remove?(sourceId: string): Promise<void>;
  /**
   * Embeds up to `limit` stored passages that have no vector of the current model (indexed before
   * vectors existed, while the embedder was down, or with another model), in batches. Only
   * indexes that store vectors themselves have it.
   */
  backfillVectors?(limit: number): Promise<VectorBackfill>;
}

/** What one backfill run did: the sources whose passages got vectors, and what is left. */
export interface VectorBackfill {
  /** Email ids (and knowledge source ids, `knowledge:…`) whose passages got vectors in this run. */
  sources: string[];
  passages: number;
  /** True when more passages without a current vector remain for the next run. */
  more: boolean;
}
