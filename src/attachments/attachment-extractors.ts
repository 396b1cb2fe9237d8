/**
 * The text of one attachment, by format. Runs inside the reader thread
 * (attachment-extract-worker.ts): whatever a hostile file does here (loops, deep nesting, a
 * heap that grows) ends that thread, never the worker. Each reader stops at the limits it is
 * given; the packages are ESM only and loaded by dynamic import, so the CommonJS build works.
 */
import { convert } from 'html-to-text';
import type { AttachmentLimits } from './attachment-limits';
import type { AttachmentPage, AttachmentReadOutcome } from './attachments.port';

export type AttachmentKind = 'pdf' | 'docx' | 'odt' | 'text' | 'csv' | 'html' | 'rfc822' | 'encrypted-office';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const ODT = 'application/vnd.oasis.opendocument.text';

/** What reader a file gets, from the type its content says (the name and declared type only pick among zip formats and text). */
export function attachmentKind(file: {
  filename: string | null;
  declaredType: string;
  detectedType: string | null;
}): AttachmentKind | null {
  const name = (file.filename ?? '').toLowerCase();
  const declared = file.declaredType.toLowerCase();
  const detected = file.detectedType;
  if (detected === 'application/pdf') return 'pdf';
  if (detected === DOCX) return 'docx';
  if (detected === ODT) return 'odt';
  if (detected === 'application/zip') {
    // A Word or ODF container file-type could not confirm (or a zip bomb dressed as one): the reader checks.
    if (declared === DOCX || name.endsWith('.docx')) return 'docx';
    if (declared === ODT || name.endsWith('.odt')) return 'odt';
    return null;
  }
  // Office's password protection wraps the document in an OLE container (EncryptedPackage).
  if (detected === 'application/x-cfb') return 'encrypted-office';
  if (detected === 'message/rfc822' || declared === 'message/rfc822') return 'rfc822';
  if (detected === 'text/html') return 'html';
  if (detected === 'text/plain') return declared === 'text/csv' || name.endsWith('.csv') ? 'csv' : 'text';
  return null;
}

/** Cuts the pages at `maxChars` characters in all; says what was left out. */
function capChars(pages: AttachmentPage[], maxChars: number, notes: string[]): AttachmentPage[] {
  const out: AttachmentPage[] = [];
  let used = 0;
  for (const p of pages) {
    const text = p.text.trim();
    if (!text) continue;
    if (used + text.length > maxChars) {
      const rest = maxChars - used;
      if (rest > 0) out.push({ page: p.page, text: text.slice(0, rest) });
      notes.push(`text cut at ${maxChars} characters`);
      break;
    }
    out.push({ page: p.page, text });
    used += text.length;
  }
  return out;
}

function decodeText(content: Buffer): string {
  const utf8 = content.toString('utf8');
  // Many replacement characters: a Latin-1 file (old Windows exports, CSV from spreadsheets).
  return utf8.split('\uFFFD').length - 1 > utf8.length / 100 ? content.toString('latin1') : utf8;
}

async function readPdf(content: Buffer, limits: AttachmentLimits, notes: string[]): Promise<AttachmentReadOutcome> {
  const { getDocumentProxy } = await import('unpdf');
  let pdf;
  try {
    // No eval (fonts compiled to functions), no fetches: the file is data, never code.
    // verbosity 0: pdf.js writes its warnings about a damaged file to the console otherwise (the outcome says enough).
    const options = { isEvalSupported: false, stopAtErrors: false, disableFontFace: true, verbosity: 0 };
    pdf = await getDocumentProxy(new Uint8Array(content), options as Parameters<typeof getDocumentProxy>[1]);
  } catch (err) {
    const name = (err as { name?: string }).name ?? '';
    if (name === 'PasswordException') return { state: 'encrypted', reason: 'the PDF is password-protected' };
    return { state: 'unreadable', reason: `not a readable PDF: ${(err as Error).message ?? String(err)}` };
  }
  const pages: AttachmentPage[] = [];
  const total = pdf.numPages;
  const last = Math.min(total, limits.maxPages);
  let chars = 0;
  for (let n = 1; n <= last && chars <= limits.maxChars; n++) {
    const page = await pdf.getPage(n);
    const content = await page.getTextContent();
    const text = content.items
      .map((i) => ('str' in i ? `${i.str}${i.hasEOL ? '\n' : ''}` : ''))
      .join('')
      .replace(/(?<![ \t])[ \t]+\n/g, '\n');
    pages.push({ page: n, text });
    chars += text.length;
    page.cleanup();
  }
  if (total > last) notes.push(`pages 1–${last} of ${total} read (limit ${limits.maxPages})`);
  // The proxy frees its parsed objects with cleanup() (destroy() lives on the loading task).
  await (pdf as unknown as { cleanup(): Promise<void> }).cleanup?.();
  return { state: 'extracted', pages, note: null };
}

/**
 * The declared sizes of a zip's entries, read from its directory without unpacking anything: a
 * zip bomb (a few KB that unpack to gigabytes) is refused before a byte is inflated.
 */
async function zipDirectory(content: Buffer, limits: AttachmentLimits): Promise<{ problem: string | null; names: string[] }> {
  const { unzipSync } = await import('fflate');
  let total = 0;
  const names: string[] = [];
  try {
    unzipSync(new Uint8Array(content), {
      filter(f) {
        total += f.originalSize;
        names.push(f.name);
        return false;
      },
    });
  } catch (err) {
    return { problem: `not a readable zip container: ${(err as Error).message}`, names };
  }
  if (total > limits.maxUnzippedBytes) {
    return {
      problem: `zip bomb: ${content.length} bytes that unpack to ${total} bytes (limit ${limits.maxUnzippedBytes}); not unpacked`,
      names,
    };
  }
  if (names.length > 10_000) return { problem: `zip bomb: ${names.length} entries; not unpacked`, names };
  return { problem: null, names };
}

async function readDocx(content: Buffer, limits: AttachmentLimits): Promise<AttachmentReadOutcome> {
  const dir = await zipDirectory(content, limits);
  if (dir.problem) return { state: 'unreadable', reason: dir.problem };
  if (dir.names.includes('EncryptedPackage')) return { state: 'encrypted', reason: 'the Word document is password-protected' };
  if (!dir.names.includes('word/document.xml')) return { state: 'unreadable', reason: 'a zip file without a Word document inside' };
  const mammoth = (await import('mammoth')).default;
  const { value } = await mammoth.extractRawText({ buffer: content });
  return { state: 'extracted', pages: [{ page: 1, text: value }], note: null };
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

async function readOdt(content: Buffer, limits: AttachmentLimits): Promise<AttachmentReadOutcome> {
  const dir = await zipDirectory(content, limits);
  if (dir.problem) return { state: 'unreadable', reason: dir.problem };
  if (dir.names.includes('META-INF/manifest.xml') && !dir.names.includes('content.xml')) {
    return { state: 'unreadable', reason: 'an ODF container without content' };
  }
  const { unzipSync, strFromU8 } = await import('fflate');
  const files = unzipSync(new Uint8Array(content), { filter: (f) => f.name === 'content.xml' || f.name === 'META-INF/manifest.xml' });
  const manifest = files['META-INF/manifest.xml'] ? strFromU8(files['META-INF/manifest.xml']) : '';
  if (/<manifest:encryption-data\b/.test(manifest)) return { state: 'encrypted', reason: 'the ODF document is password-protected' };
  const xml = files['content.xml'] ? strFromU8(files['content.xml']) : '';
  if (!xml) return { state: 'unreadable', reason: 'an ODF container without content.xml' };
  const text = xml
    .replace(/<text:(tab)\b[^>]*\/>/g, '\t')
    .replace(/<text:s\b[^>]*\/>/g, ' ')
    .replace(/<text:line-break\b[^>]*\/>/g, '\n')
    .replace(/<\/text:(p|h)>/g, '\n')
    .replace(/<[^<>]+>/g, '')
    .replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => XML_ENTITIES[e] ?? '')
    .replace(/&#(x?)([0-9a-f]+);/gi, (_, hex: string, n: string) => String.fromCodePoint(parseInt(n, hex ? 16 : 10)));
  return { state: 'extracted', pages: [{ page: 1, text }], note: null };
}

function htmlText(html: string): string {
  return convert(html, { wordwrap: false, selectors: [{ selector: 'img', format: 'skip' }], limits: { maxDepth: 1000 } });
}

/** A forwarded message read as mail: who wrote it, when, about what, and its text. */
async function readRfc822(content: Buffer): Promise<AttachmentReadOutcome> {
  const { simpleParser } = await import('mailparser');
  const m = await simpleParser(content, { skipImageLinks: true, maxHtmlLengthToParse: 5 * 1024 * 1024 });
  const body = m.text?.trim() ? m.text : typeof m.html === 'string' ? htmlText(m.html) : '';
  const head = [
    m.from?.text ? `From: ${m.from.text}` : null,
    m.date ? `Date: ${m.date.toISOString()}` : null,
    m.subject ? `Subject: ${m.subject}` : null,
  ].filter(Boolean);
  const inner = m.attachments.map((a) => a.filename).filter(Boolean);
  const note = inner.length > 0 ? `its own attachments not read: ${inner.join(', ').slice(0, 200)}` : null;
  return { state: 'extracted', pages: [{ page: 1, text: `${head.join('\n')}\n\n${body.trim()}` }], note };
}

/** Reads one file of a known kind within the limits (the caller checked its size and holds the timer). */
export async function extractAttachment(
  kind: AttachmentKind,
  content: Buffer,
  limits: AttachmentLimits,
  filename: string | null,
): Promise<AttachmentReadOutcome> {
  const notes: string[] = [];
  let outcome: AttachmentReadOutcome;
  switch (kind) {
    case 'pdf':
      outcome = await readPdf(content, limits, notes);
      break;
    case 'docx':
      outcome = await readDocx(content, limits);
      break;
    case 'odt':
      outcome = await readOdt(content, limits);
      break;
    case 'encrypted-office':
      // Word's password protection (and legacy .doc, which is not read) both live in an OLE container.
      outcome = content.includes(Buffer.from('EncryptedPackage', 'utf16le'))
        ? { state: 'encrypted', reason: 'the Office document is password-protected' }
        : { state: 'skipped', reason: 'a legacy Office file (OLE container): not read' };
      break;
    case 'rfc822':
      outcome = await readRfc822(content);
      break;
    case 'html':
      outcome = { state: 'extracted', pages: [{ page: 1, text: htmlText(decodeText(content)) }], note: null };
      if (filename && !/\.html?$/i.test(filename)) notes.push(`named ${filename} but its content is HTML`);
      break;
    case 'text':
    case 'csv':
      outcome = { state: 'extracted', pages: [{ page: 1, text: decodeText(content) }], note: null };
      break;
  }
  if (outcome.state !== 'extracted') return outcome;
  const pages = capChars(outcome.pages, limits.maxChars, notes);
  if (outcome.note) notes.push(outcome.note);
  if (pages.length === 0)
    return { state: 'unreadable', reason: kind === 'pdf' ? 'the PDF has no text layer (scanned pages?)' : 'no text in it' };
  return { state: 'extracted', pages, note: notes.length > 0 ? notes.join('; ') : null };
}
