/**
 * What the part headers of a raw message say below the top level, for triage: the `report-type`
 * of multipart/report parts (a DSN a gateway wrapped in multipart/mixed) and whether a whole
 * message is attached. mailparser keeps no MIME tree and inlines message/rfc822 parts, hence this
 * look at the part headers themselves. Hand-written because it reads only part headers, without
 * decoding anything, within a bounded prefix.
 *
 * Only the headers of real parts count: a part starts at a delimiter line of a boundary the message
 * declared (the top level's, or a multipart part's before it). A customer who pastes a bounce's
 * raw text into a mail names boundaries nobody declared, so the pasted headers are text. The walk
 * stops at the first message/rfc822 part: what follows belongs to the attached message, and a
 * customer forwarding a bounce as an attachment is a person asking.
 */

/** How far into a message part headers are read: reports are small, mail may not be. */
const SCAN_BYTES = 256 * 1024;

export interface MimeStructure {
  nestedReportTypes: string[];
  attachesMessage: boolean;
}

function unfold(lines: string[]): string[] {
  const out: string[] = [];
  for (const l of lines) {
    if (/^[ \t]/.test(l) && out.length > 0) out[out.length - 1] += ` ${l.trim()}`;
    else out.push(l);
  }
  return out;
}

function contentType(headerLines: string[]): string {
  const line = unfold(headerLines).find((l) => /^content-type:/i.test(l));
  return line ? line.slice(line.indexOf(':') + 1).trim() : '';
}

function boundaryOf(type: string): string | null {
  if (!/^multipart\//i.test(type)) return null;
  const m = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^\s;]+))/i.exec(type);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

/** `raw` with CRLF line ends (src/email/intake/line-endings.ts). */
export function mimeStructure(raw: Buffer): MimeStructure {
  const text = raw.subarray(0, SCAN_BYTES).toString('latin1');
  const result: MimeStructure = { nestedReportTypes: [], attachesMessage: false };
  const blank = text.indexOf('\r\n\r\n');
  if (blank < 0) return result;
  const boundaries = new Set<string>();
  const top = boundaryOf(contentType(text.slice(0, blank).split('\r\n')));
  if (top) boundaries.add(top);
  let partHeaders: string[] | null = null;
  for (const line of text.slice(blank + 4).split('\r\n')) {
    if (partHeaders === null) {
      if (line.startsWith('--') && boundaries.has(line.slice(2).trimEnd())) partHeaders = [];
      continue;
    }
    if (line !== '') {
      partHeaders.push(line);
      continue;
    }
    const type = contentType(partHeaders);
    partHeaders = null;
    const lower = type.toLowerCase();
    if (lower.startsWith('message/rfc822')) return { ...result, attachesMessage: true };
    if (lower.startsWith('multipart/report')) result.nestedReportTypes.push(/report-type\s*=\s*"?([a-z0-9-]+)/.exec(lower)?.[1] ?? '');
    const inner = boundaryOf(type);
    if (inner) boundaries.add(inner);
  }
  return result;
}
