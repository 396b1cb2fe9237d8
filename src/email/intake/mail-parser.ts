import { FAILURE_TYPES } from '../../platform/contract';
import { createHash } from 'node:crypto';
import { convert } from 'html-to-text';
import { simpleParser, type AddressObject as ParsedAddressObject } from 'mailparser';
import { PermanentError } from '../../platform/errors';
import { extractHiddenText } from '../../drafting';
import { toCrlf } from './line-endings';
import { mimeStructure, priorityFromHeaders, type TriageMessage, SPAM_BODY_CHARS } from '../../triage';
import type { AttachmentFile } from '../../attachments';
import type { ParsedEmail } from '../email-stores.port';

type Address = { name: string; address: string };

function addresses(field: ParsedAddressObject | ParsedAddressObject[] | undefined): Address[] {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  const out: Address[] = [];
  for (const group of list) {
    for (const a of group.value) {
      if (a.address) out.push({ name: a.name ?? '', address: a.address.toLowerCase() });
      for (const member of a.group ?? []) if (member.address) out.push({ name: member.name ?? '', address: member.address.toLowerCase() });
    }
  }
  return out;
}

function rawHeader(lines: ReadonlyArray<{ key: string; line: string }>, key: string): string | undefined {
  const line = lines.find((l) => l.key === key)?.line;
  return line?.slice(line.indexOf(':') + 1).trim();
}

/** The thread is named after its first message; long ids are hashed to fit an index. */
export function threadIdFor(rootMessageId: string): string {
  return `thread-${createHash('sha256').update(rootMessageId).digest('hex').slice(0, 32)}`;
}

/** Top-level header values by lower-case name, unfolded; what triage reads. */
function headerMap(lines: ReadonlyArray<{ key: string; line: string }>): Record<string, string[]> {
  const map: Record<string, string[]> = {};
  for (const l of lines) {
    const value = l.line
      .slice(l.line.indexOf(':') + 1)
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim();
    (map[l.key] ??= []).push(value);
  }
  return map;
}

/** A parsed email plus the header and structure facts that triage needs (not stored as such). */
export type ParsedMessage = ParsedEmail & {
  triage: Pick<TriageMessage, 'headers' | 'partTypes' | 'nestedReportTypes' | 'attachesMessage' | 'body'>;
  /** The attachments with their bytes, for the attachment store (never part of the emails row). */
  files: AttachmentFile[];
};

export async function parseRawEmail(original: Buffer, fallbackId: string): Promise<ParsedMessage> {
  // Bare CR (old Mac) or bare LF line ends: mailparser would read a bare-CR message as one header line.
  const raw = toCrlf(original);
  const head = raw.subarray(0, 64 * 1024).toString('latin1');
  if (raw.length === 0 || !/^[!-9;-~]+:/m.test(head.split(/\r?\n\r?\n/)[0] ?? '')) {
    throw new PermanentError('message has no RFC 822 header block', FAILURE_TYPES.malformedMessage);
  }
  let parsed;
  try {
    parsed = await simpleParser(raw, { skipImageLinks: true, maxHtmlLengthToParse: 5 * 1024 * 1024 });
  } catch (err) {
    throw new PermanentError(`message cannot be parsed: ${(err as Error).message}`, FAILURE_TYPES.malformedMessage, { cause: err });
  }
  const from = addresses(parsed.from)[0] ?? null;
  const replyTo = addresses(parsed.replyTo)[0] ?? null;
  const htmlText =
    typeof parsed.html === 'string'
      ? convert(parsed.html, {
          wordwrap: false,
          selectors: [{ selector: 'img', format: 'skip' }],
          // Deeply nested hostile HTML would overflow the stack; text below this depth is dropped.
          limits: { maxDepth: 1000 },
        })
      : '';
  const text = (parsed.text?.trim() ? parsed.text : htmlText).trim();
  if (!from && !text && !parsed.subject) {
    throw new PermanentError('message has neither sender nor subject nor text', FAILURE_TYPES.malformedMessage);
  }
  const references = (Array.isArray(parsed.references) ? parsed.references : parsed.references ? [parsed.references] : [])
    .flatMap((r) => r.split(/\s+/))
    .filter(Boolean);
  const inReplyTo = parsed.inReplyTo?.trim() || null;
  const messageId = parsed.messageId?.trim() || null;
  const root = references[0] ?? inReplyTo ?? messageId ?? fallbackId;
  return {
    messageId,
    inReplyTo,
    references,
    threadId: threadIdFor(root),
    from,
    replyTo,
    to: addresses(parsed.to),
    cc: addresses(parsed.cc),
    subject: (parsed.subject ?? '').trim(),
    text,
    hasHtml: typeof parsed.html === 'string',
    date: parsed.date ?? null,
    attachments: parsed.attachments.map((a) => ({
      filename: a.filename ?? null,
      contentType: a.contentType,
      size: a.size,
      contentId: a.contentId ?? null,
    })),
    // mailparser folds these three into one normalised `priority`; read the original lines so that
    // file imports and IMAP intake (which reads the raw headers) decide alike.
    priority: priorityFromHeaders({
      xPriority: rawHeader(parsed.headerLines, 'x-priority'),
      importance: rawHeader(parsed.headerLines, 'importance'),
      priority: rawHeader(parsed.headerLines, 'priority'),
    }),
    files: parsed.attachments.map((a, partIndex) => ({
      partIndex,
      filename: a.filename ?? null,
      declaredType: a.contentType,
      disposition: a.contentDisposition ?? null,
      contentId: a.contentId?.replace(/^<|>$/g, '') || null,
      content: a.content,
    })),
    triage: {
      headers: headerMap(parsed.headerLines),
      // mailparser lists report parts (delivery-status, rfc822 headers, returned message) as attachments.
      partTypes: parsed.attachments.map((a) => a.contentType.toLowerCase()),
      ...mimeStructure(raw),
      // For the built-in spam check; cut, since it only looks for signs.
      body: {
        text: text.slice(0, SPAM_BODY_CHARS),
        html: typeof parsed.html === 'string' ? parsed.html.slice(0, SPAM_BODY_CHARS) : null,
      },
    },
  };
}

/**
 * The text the HTML body of a stored message hides from its reader (white on white,
 * `display:none`, comments, …), for the injection check; '' for plain-text mail. Read again from
 * the raw bytes when a draft is written, so nothing extra has to be stored with the email.
 */
export async function hiddenHtmlText(raw: Buffer | null): Promise<string> {
  if (!raw) return '';
  try {
    const parsed = await simpleParser(toCrlf(raw), { skipImageLinks: true, maxHtmlLengthToParse: 5 * 1024 * 1024 });
    return typeof parsed.html === 'string' ? extractHiddenText(parsed.html) : '';
  } catch {
    // The message was parsed once already; a second failure only means there is nothing to check.
    return '';
  }
}
