/**
 * A reply as a mail client writes it, from the one text the reviewer approved: the plain part
 * (format=flowed, RFC 3676) and an HTML part generated from it (escaped, paragraphs, links never
 * made from the customer's text), the mailbox's signature in both, and the customer's last
 * message quoted beneath under a localized attribution line.
 */
import { DateTime } from 'luxon';

export interface ReplySignature {
  /** The plain-text signature (below the `-- ` line). */
  text?: string;
  /** The HTML signature from the registry (the operator's own markup, used as it is). */
  html?: string;
  /** Content-ID of the embedded logo, shown at the end of the HTML signature. */
  logoCid?: string;
}

export interface QuotedOriginal {
  fromName: string;
  fromAddress: string;
  date: Date | null;
  text: string;
}

export interface ReplyLayoutInput {
  body: string;
  language: 'de' | 'en';
  signature?: ReplySignature;
  original?: QuotedOriginal | null;
}

/** RFC 3676 recommends lines of at most 78 characters; 72 leaves room for quoting by the next reply. */
const FLOWED_WIDTH = 72;
/** So many lines of the original are quoted at most: a reply is not an archive. */
const MAX_QUOTED_LINES = 400;

/**
 * The customer's last message only: their own text up to the quote of an earlier mail (a `>`
 * block or an attribution line such as "Am … schrieb …:" / "On … wrote:" / "-----Original Message-----").
 */
export function lastMessage(text: string): string {
  const kept: string[] = [];
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (/^\s*>/.test(line)) break;
    if (/^-{3,}\s*(original|ursprüngliche)/i.test(line) || /^(am|on)\b.{0,160}\b(schrieb|wrote)\b.{0,120}:\s*$/i.test(line)) break;
    kept.push(line);
  }
  return kept.join('\n').trim().split('\n').slice(0, MAX_QUOTED_LINES).join('\n');
}

/** `Am 2. Dezember 2026 schrieb Erika Mustermann:` / `On 2 December 2026, Erika Mustermann wrote:` */
export function attributionLine(original: Pick<QuotedOriginal, 'fromName' | 'fromAddress' | 'date'>, language: 'de' | 'en'): string {
  const who =
    original.fromName
      .replace(/[\p{Cc}<>"]/gu, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 100) || original.fromAddress;
  if (!original.date) return language === 'de' ? `${who} schrieb:` : `${who} wrote:`;
  const day = DateTime.fromJSDate(original.date, { zone: 'Europe/Berlin' }).setLocale(language);
  return language === 'de' ? `Am ${day.toFormat('d. LLLL yyyy')} schrieb ${who}:` : `On ${day.toFormat('d LLLL yyyy')}, ${who} wrote:`;
}

/**
 * One logical line as format=flowed lines: soft breaks end in a space, words longer than the
 * width stay whole; a line starting with a space, `>` or `From ` is space-stuffed.
 */
function flowLine(line: string, prefix: string): string[] {
  const stuffed = (s: string) => (prefix === '' && /^( |>|From )/.test(s) ? ` ${s}` : s);
  const trimmed = line.replace(/(?<! ) +$/, '');
  const width = Math.max(20, FLOWED_WIDTH - prefix.length);
  if (trimmed.length <= width) return [prefix + stuffed(trimmed)];
  const out: string[] = [];
  let current = '';
  for (const word of trimmed.split(/(?<= )/)) {
    if (current && current.length + word.length > width) {
      out.push(prefix + stuffed(current.endsWith(' ') ? current : `${current} `));
      current = '';
    }
    current += word;
  }
  if (current) out.push(prefix + stuffed(current.replace(/(?<! ) +$/, '')));
  return out;
}

function flowed(text: string, prefix = ''): string[] {
  return text.split('\n').flatMap((line) => flowLine(line, prefix));
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Paragraphs at blank lines, line breaks within; every character escaped, nothing turned into a link. */
export function textToHtml(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p>${p.split('\n').map(escapeHtml).join('<br>\n')}</p>`)
    .join('\n');
}

const normalise = (s: string) => s.replace(/\r\n?/g, '\n').replace(/(?<!\s)\s+$/, '');

/** The signature without a leading `-- ` line of its own (it gets one, once). */
const signatureText = (sig: string | undefined) =>
  sig
    ? normalise(sig)
        .replace(/^\s*-- ?\n/, '')
        .trim()
    : '';

export function layoutReply(input: ReplyLayoutInput): { text: string; html: string } {
  const body = normalise(input.body);
  const sig = signatureText(input.signature?.text);
  // A body that already ends in the signature (typed by the reviewer) does not get it twice.
  const withSig = sig && !body.endsWith(sig);
  const quoted = input.original ? lastMessage(input.original.text) : '';
  const attribution = input.original ? attributionLine(input.original, input.language) : '';

  const text: string[] = [...flowed(body)];
  if (withSig) text.push('', '-- ', ...flowed(sig));
  if (quoted) text.push('', ...flowed(attribution), ...flowed(quoted, '> '));

  const sigHtml = input.signature?.html ?? (sig ? textToHtml(sig) : '');
  const logo = input.signature?.logoCid
    ? `<p><img src="cid:${escapeHtml(input.signature.logoCid)}" alt="" style="max-height:60px"></p>`
    : '';
  const html = [
    '<!DOCTYPE html>',
    '<html><head><meta charset="utf-8"></head><body>',
    `<div class="reply">${textToHtml(body)}</div>`,
    withSig || input.signature?.html ? `<div class="signature">-- <br>\n${sigHtml}${logo}</div>` : logo,
    quoted
      ? `<div class="quote"><p>${escapeHtml(attribution)}</p>\n<blockquote type="cite" style="margin:0 0 0 .8ex;border-left:2px solid #ccc;padding-left:1ex">${textToHtml(quoted)}</blockquote></div>`
      : '',
    '</body></html>',
  ]
    .filter(Boolean)
    .join('\n');
  return { text: `${text.join('\n')}\n`, html };
}
