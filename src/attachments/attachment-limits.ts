/**
 * How far the index step reads attachments (docs/attachments.md): every limit bounds what one
 * hostile file can cost a worker, so a mail with a PDF bomb is indexed like any other, minus that
 * file, and the reviewer is told why.
 */
export interface AttachmentLimits {
  /** Larger files are stored and downloadable, but not read (ATTACHMENT_MAX_BYTES). */
  maxBytes: number;
  /** PDF pages read per file; the rest is named in the note (ATTACHMENT_MAX_PAGES). */
  maxPages: number;
  /** Characters kept per file (ATTACHMENT_MAX_CHARS). */
  maxChars: number;
  /** Wall time one file may take before its reader is stopped (ATTACHMENT_TIMEOUT_MS). */
  timeoutMs: number;
  /** Files read per email, in part order; the rest is stored but not read. */
  maxFiles: number;
  /** Sum of the declared uncompressed sizes of a DOCX/ODT (zip) container: above it, a zip bomb. */
  maxUnzippedBytes: number;
  /** Heap of the reader thread: a file that needs more ends the thread, not the worker. */
  maxHeapMb: number;
}

export const DEFAULT_ATTACHMENT_LIMITS: AttachmentLimits = {
  maxBytes: 10 * 1024 * 1024,
  maxPages: 50,
  maxChars: 100_000,
  timeoutMs: 10_000,
  maxFiles: 20,
  maxUnzippedBytes: 50 * 1024 * 1024,
  maxHeapMb: 256,
};

/** Raster images a browser shows without running anything: the only attachment types served inline. */
export const INLINE_IMAGE_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp'];

/** The reader's reasons for a file that holds no text by nature (an image, an empty file): no audit row. */
export const NO_TEXT_BY_NATURE = /^empty file|: not a text format$/;

/** How an extracted page is cited in a draft's context: `attachment:<file>#p<page>`. */
export function attachmentSourceId(filename: string | null, partIndex: number, page: number): string {
  const name = (filename ?? `part-${partIndex + 1}`).replace(/[\s#]+/g, '_').slice(0, 120);
  return `attachment:${name}#p${page}`;
}

/** Readable size for the reviewer: 0 B, 12 KB, 3.4 MB. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
