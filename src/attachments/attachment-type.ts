/**
 * The type of an attachment by its content, never by its name or declared type: a file named
 * invoice.pdf whose bytes are HTML is HTML. Binary formats by their magic numbers (`file-type`);
 * what has none (text) by a look at the first bytes.
 */

/** The one function used of the ESM-only package, typed here so the CommonJS build needs no ESM types. */
type FileTypeModule = { fileTypeFromBuffer(content: Uint8Array): Promise<{ mime: string } | undefined> };
let fileType: Promise<FileTypeModule> | undefined;

/** How much of the start is read to tell text from binary and to find HTML markers. */
const SNIFF_BYTES = 4096;

function looksLikeText(head: Buffer): boolean {
  if (head.includes(0)) return false;
  // Invalid UTF-8 decodes to U+FFFD; a few are tolerated (Latin-1 text), many mean binary.
  const text = head.toString('utf8');
  const bad = text.split('\uFFFD').length - 1;
  const control = (text.match(/[\x00-\x08\x0E-\x1F]/g) ?? []).length;
  return bad + control <= Math.max(2, text.length / 50);
}

/** Markup a browser would render as a page (or run): never shown inline, whatever the name says. */
const HTML_MARKERS = /<(!doctype\s+html|html|head|body|script|iframe|svg|img|a\s|div|meta|title|style)\b/i;

/** The MIME type the bytes say, or null when they say nothing known (empty, unknown binary). */
export async function detectContentType(content: Buffer): Promise<string | null> {
  if (content.length === 0) return null;
  // The package is ESM only: loaded once, by dynamic import, so the CommonJS build keeps working.
  fileType ??= import('file-type') as Promise<FileTypeModule>;
  const found = await (await fileType).fileTypeFromBuffer(content).catch(() => undefined);
  if (found) return found.mime;
  const head = content.subarray(0, SNIFF_BYTES);
  if (!looksLikeText(head)) return null;
  const text = head.toString('utf8').trimStart();
  if (/^<\?xml[\s\S]{0,400}<svg\b/i.test(text) || /^<svg\b/i.test(text)) return 'image/svg+xml';
  if (HTML_MARKERS.test(text)) return 'text/html';
  // A header block (a forwarded message saved as a file) reads as mail.
  if (/^(received|from|return-path|message-id|date|subject|mime-version):[^\r\n]*\r?\n(?:[!-9;-~]+:|[ \t])/i.test(text))
    return 'message/rfc822';
  return 'text/plain';
}
