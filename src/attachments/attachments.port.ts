/**
 * The attachments of incoming mail: kept with their content (upserted on email id and MIME part
 * index, so a retried parse step writes the same rows), and the text the index step read from them.
 */

/** One attachment as the parser found it, with its bytes. */
export interface AttachmentFile {
  /** Position among the message's attachments (mailparser's order): the natural key with the email id. */
  partIndex: number;
  filename: string | null;
  /** The Content-Type the sender declared. */
  declaredType: string;
  /** `attachment` or `inline` (Content-Disposition), null when absent. */
  disposition: string | null;
  /** Content-ID without angle brackets (what `cid:` links in the HTML name), null when absent. */
  contentId: string | null;
  content: Buffer;
}

/** What the index step made of an attachment's text. */
export type AttachmentTextState = 'extracted' | 'encrypted' | 'unreadable' | 'skipped';

/** An attachment as stored, without its bytes. */
export interface StoredAttachment {
  emailId: string;
  partIndex: number;
  filename: string | null;
  declaredType: string;
  /** The type its bytes say (magic numbers), null when they match no known type. */
  detectedType: string | null;
  size: number;
  sha256: string;
  disposition: string | null;
  contentId: string | null;
  textState: AttachmentTextState | null;
  /** Why the text could not be read (encrypted, too large, timed out, …). */
  textNote: string | null;
}

/** One page (PDF) or piece (everything else: 1) of text read from an attachment. */
export interface AttachmentPage {
  page: number;
  text: string;
}

export interface AttachmentStore {
  /** Stores one attachment with its bytes in chunks; writes again the same row on a retry. */
  save(emailId: string, file: AttachmentFile & { detectedType: string | null }): Promise<void>;
  list(emailId: string): Promise<StoredAttachment[]>;
  /** The attachment's bytes (null: no such attachment). */
  content(emailId: string, partIndex: number): Promise<Buffer | null>;
  /** The inline part with this Content-ID (for `cid:` images), null when there is none. */
  byContentId(emailId: string, contentId: string): Promise<StoredAttachment | null>;
  /** Replaces the attachment's extracted pages and records its state (and why). */
  saveText(emailId: string, partIndex: number, state: AttachmentTextState, note: string | null, pages: AttachmentPage[]): Promise<void>;
  /** Every extracted page of the email's attachments, in part and page order. */
  texts(emailId: string): Promise<Array<AttachmentPage & { partIndex: number; filename: string | null }>>;
}

/** What reading one attachment gave: its text, or why there is none. */
export type AttachmentReadOutcome =
  | { state: 'extracted'; pages: AttachmentPage[]; /** What was left out (pages or characters past a limit). */ note: string | null }
  | { state: 'encrypted' | 'unreadable' | 'skipped'; reason: string };

/** Reads the text of attachments within limits of size, pages, characters and time. */
export interface AttachmentTextReader {
  /** Files read per email (the rest is stored, not read). */
  readonly maxFiles: number;
  read(file: {
    filename: string | null;
    declaredType: string;
    detectedType: string | null;
    content: Buffer;
  }): Promise<AttachmentReadOutcome>;
  close(): Promise<void>;
}
