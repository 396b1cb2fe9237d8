import { sentencesOf, terms } from '../retrieval';
import { oneLine } from '../platform/workflow-summary';

/**
 * The handover summary of a case, made without a model: per mail (oldest first) its date, who
 * wrote it and its one or two most informative sentences, with quoted history, greetings, sign-offs
 * and signatures left out. It is for the reviewer who takes the case over and is never sent to the
 * customer. Labels are in the mailbox's language; the sentences stay in the language they were
 * written in.
 */
export type SummaryLanguage = 'de' | 'en';

export interface CaseSummaryMail {
  id: string;
  /** When it was sent (its Date header), or when it arrived. */
  at: Date;
  fromName: string | null;
  fromAddress: string | null;
  subject: string | null;
  text: string;
}

export { CASE_SUMMARY_KINDS as SUMMARY_KINDS, type CaseSummaryKind as SummaryKind } from './drafting.contract';

/** What a reviewer reads at a glance; a model's summary is cut to the same length. */
export const MAX_SUMMARY_CHARS = 3_000;
/** A mail's own words are at its start; a 5 MB mail is not read to its end. */
export const MAX_TEXT_CHARS = 100_000;
const MAX_SENTENCE_CHARS = 240;
const MAX_SENTENCES = 2;
const MAX_NAME_CHARS = 60;
const MAX_SUBJECT_CHARS = 90;

const LABELS = {
  de: {
    header: (n: number, who: string, from: string, to: string) => `${n} Mails von ${who}, ${from} bis ${to}:`,
    subject: 'Betreff',
    quotedOnly: '(kein eigener Text, nur Zitat)',
    noText: '(kein Text)',
    omitted: (n: number) => `… ${n} weitere Mails dazwischen …`,
  },
  en: {
    header: (n: number, who: string, from: string, to: string) => `${n} mails from ${who}, ${from} to ${to}:`,
    subject: 'Subject',
    quotedOnly: '(no text of its own, only a quote)',
    noText: '(no text)',
    omitted: (n: number) => `… ${n} more mails in between …`,
  },
} as const;

/** Where the history below a reply starts: a client's quote header or a forwarded message. */
const QUOTE_HEADER = [
  /^-{2,}\s*(original message|ursprüngliche nachricht|forwarded message|weitergeleitete nachricht)/i,
  /^(am|on)\b.{0,160}\b(schrieb|wrote|a écrit)\b.{0,40}:?\s*$/i,
  /^(von|from)\s*:\s*\S.*$/i,
  /^_{10,}\s*$/,
];
/** A signature or sign-off on a line of its own: what follows is name, title and phone numbers. */
const SIGN_OFF =
  /^(--\s?|mit freundlichen grüßen|mit freundlichem gruß|freundliche grüße|viele grüße|beste grüße|liebe grüße|schöne grüße|herzliche grüße|grüße|gruß|mfg|lg|vg|best regards|kind regards|warm regards|regards|best wishes|best|cheers|thanks|thank you|many thanks|vielen dank|danke|sent from my \w+|von meinem \w+ gesendet|gesendet von meinem \w+)[\s,.!]*$/i;
/** A greeting line: no content, and it would be glued to the first sentence. */
const GREETING =
  /^(hallo|hi|hey|guten (tag|morgen|abend)|sehr geehrte[rs]?|liebe[rs]?|dear|hello|good (morning|afternoon|evening))\b[^.!?]{0,80}[,!]?\s*$/i;

const ENTITIES: Record<string, string> = { nbsp: ' ', amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
/** Tags of HTML mail; an address in angle brackets (<a@b.example>) is no tag. */
// Attributes stop at the next "<": a flood of unclosed tags is read in linear time.
const HTML_TAG =
  /<\/?(?:a|b|i|u|p|br|hr|div|span|font|img|table|thead|tbody|tr|td|th|ul|ol|li|h[1-6]|blockquote|center|strong|em|html|head|title|body|meta|link|o:p)\b[^<>]{0,2000}>/gi;
const BLOCK_END = /<(?:br|hr)\b[^<>]{0,2000}>|<\/(?:p|div|tr|li|h[1-6]|blockquote|table)>/gi;
/** Elements whose content is no text for a reader: dropped with it (an unclosed one to the end). */
const DROPPED = [
  { open: '<script', close: '</script>' },
  { open: '<style', close: '</style>' },
  { open: '<!--', close: '-->' },
];

/** Cuts the dropped elements out with indexOf, once through the text (a regex would rescan per opening). */
function withoutDropped(text: string): string {
  const lower = text.toLowerCase();
  const next = DROPPED.map((d) => lower.indexOf(d.open));
  let out = '';
  let at = 0;
  for (;;) {
    let k = -1;
    for (let j = 0; j < DROPPED.length; j += 1) if (next[j]! !== -1 && (k === -1 || next[j]! < next[k]!)) k = j;
    if (k === -1) return out + text.slice(at);
    const start = next[k]!;
    const end = lower.indexOf(DROPPED[k]!.close, start);
    out += `${text.slice(at, start)} `;
    if (end === -1) return out;
    at = end + DROPPED[k]!.close.length;
    for (let j = 0; j < DROPPED.length; j += 1) if (next[j]! !== -1 && next[j]! < at) next[j] = lower.indexOf(DROPPED[j]!.open, at);
  }
}

/**
 * Text that still carries HTML (a part converted badly, a pasted snippet) as plain text: script,
 * style and comments go with their content, block ends become line breaks, other tags go, the
 * common entities are decoded. The text's own line breaks stay: they separate quote and signature.
 */
function withoutHtml(text: string): string {
  const plain = /<\/?[a-z][a-z0-9:]*\b[^<>@]{0,2000}>|<!--/i.test(text)
    ? withoutDropped(text).replace(BLOCK_END, '\n').replace(HTML_TAG, ' ')
    : text;
  return plain.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]{2,8});/gi, (m, e: string) => {
    const lower = e.toLowerCase();
    const code = lower.startsWith('#x') ? Number.parseInt(lower.slice(2), 16) : lower.startsWith('#') ? Number(lower.slice(1)) : NaN;
    if (!Number.isNaN(code)) return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' ';
    return ENTITIES[lower] ?? m;
  });
}

/**
 * A full stop that ends no sentence: a German date ("3. Mai") or an abbreviation before a number
 * or a name ("Nr. 4711", "z. B. Das"). Glued with a word joiner, which the sentence splitter does
 * not read as space; oneLine makes it a space again.
 */
const NO_SENTENCE_END = [
  /\b(\d{1,2})\.\s+(?=(jan|feb|mär|apr|mai|jun|jul|aug|sep|okt|oct|nov|dez|dec)\p{L}*\b)/giu,
  /\b(nr|no|ca|tel|bzw|inkl|zzgl|str|mr|mrs|ms|dr|hr|fr|z\.\s?b|u\.\s?a|e\.g|i\.e)\.\s+/giu,
];
const GLUE = '.\u2060';

/**
 * What the writer wrote themselves: quoted lines, the quoted history below a quote header, the
 * greeting and everything from the sign-off or signature on are left out. `quoted` tells whether
 * there was a quote, so an empty result can say "only a quote".
 */
export function ownText(text: string): { text: string; quoted: boolean } {
  const plain = withoutHtml(text.slice(0, MAX_TEXT_CHARS)).replace(/\r\n?/g, '\n');
  const kept: string[] = [];
  let quoted = false;
  for (const raw of plain.split('\n')) {
    const line = raw.trim();
    if (QUOTE_HEADER.some((re) => re.test(line))) {
      quoted = true;
      break;
    }
    if (SIGN_OFF.test(line)) {
      // "Danke!" above the text is a thank-you, not the end of it.
      if (kept.some((l) => l !== '')) break;
      continue;
    }
    if (line.startsWith('>')) {
      quoted = true;
      continue;
    }
    if (kept.every((l) => l === '') && GREETING.test(line)) continue;
    kept.push(line);
  }
  return { text: kept.join('\n').trim(), quoted };
}

/** Phrases that only frame a mail: they carry no fact the next reviewer needs. */
const PLEASANTRY = /^(vielen dank|danke|ich danke|thank you|thanks|ich freue mich|i look forward|looking forward|ich hoffe|i hope)\b/i;
const REQUEST = /\?|\b(bitte|please|können sie|könnten sie|could you|can you|would you|ich möchte|i would like|i want)\b/i;

/** How much a sentence tells: its content words, plus a number (order, amount, date) or a request. */
function informativeness(sentence: string, index: number): number {
  let score = Math.min(terms(sentence).size, 12);
  if (/\d/.test(sentence)) score += 2;
  if (REQUEST.test(sentence)) score += 3;
  if (PLEASANTRY.test(sentence)) score -= 4;
  // Between equals the earlier sentence: it states what the mail is about.
  return score - index * 0.1;
}

/** The one or two most informative sentences of a mail's own text, in their order. */
export function keySentences(own: string, subject = ''): string[] {
  const glued = NO_SENTENCE_END.reduce((text, re) => text.replace(re, `$1${GLUE}`), own);
  // A sentence repeated (a pasted block, a flood) counts once.
  const sentences = [...new Set(sentencesOf(glued, subject))];
  if (sentences.length === 0) {
    // Too short for a sentence ("Rechnung?", "ok, passt"): its first line, as it is.
    const first = own.split('\n').find((l) => /\p{L}/u.test(l));
    return first ? [oneLine(first, MAX_SENTENCE_CHARS)] : [];
  }
  return sentences
    .map((s, i) => ({ s, i, score: informativeness(s, i) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, MAX_SENTENCES)
    .sort((a, b) => a.i - b.i)
    .map((x) => oneLine(x.s, MAX_SENTENCE_CHARS));
}

function stamp(d: Date): string {
  return Number.isNaN(d.getTime()) ? '?' : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function who(mail: Pick<CaseSummaryMail, 'fromName' | 'fromAddress'>): string {
  const name = oneLine(mail.fromName ?? '', MAX_NAME_CHARS);
  const address = oneLine(mail.fromAddress ?? '', MAX_NAME_CHARS);
  return name && address && name.toLowerCase() !== address.toLowerCase() ? `${name} <${address}>` : name || address || '?';
}

const topic = (subject: string | null) =>
  oneLine((subject ?? '').replace(/^((re|aw|fwd?|wg)\s*:\s*)+/i, ''), MAX_SUBJECT_CHARS).toLowerCase();

/** One mail's block: its line (date, sender, subject when it changed) and its key sentences. */
function mailBlock(mail: CaseSummaryMail, previous: CaseSummaryMail | undefined, language: SummaryLanguage): string {
  const t = LABELS[language];
  const subject = oneLine(mail.subject ?? '', MAX_SUBJECT_CHARS);
  const changed = subject && (!previous || topic(previous.subject) !== topic(mail.subject));
  const own = ownText(mail.text);
  const sentences = keySentences(own.text, subject);
  const body = sentences.length > 0 ? sentences.join(' ') : own.quoted ? t.quotedOnly : t.noText;
  return `- ${stamp(mail.at)} · ${who(mail)}${changed ? ` · ${t.subject}: ${subject}` : ''}\n  ${body}`;
}

/**
 * The summary of a case's mails, at most `maxChars` long. When the mails do not fit, the oldest
 * (how it started) and as many of the newest as fit are kept, and the gap is named.
 */
export function extractiveSummary(mails: readonly CaseSummaryMail[], language: SummaryLanguage, maxChars = MAX_SUMMARY_CHARS): string {
  const t = LABELS[language];
  if (mails.length === 0) return t.noText;
  const sorted = [...mails].sort((a, b) => a.at.getTime() - b.at.getTime() || a.id.localeCompare(b.id));
  const first = sorted[0]!;
  const last = sorted.at(-1)!;
  const senders = [...new Set(sorted.map(who))];
  const whoLine = senders.length === 1 ? senders[0]! : `${senders[0]!} (+${senders.length - 1})`;
  const header = t.header(sorted.length, whoLine, stamp(first.at).slice(0, 10), stamp(last.at).slice(0, 10));
  const blocks = sorted.map((m, i) => mailBlock(m, sorted[i - 1], language));
  const size = (parts: string[]) => parts.reduce((n, p) => n + p.length + 1, 0);
  let kept = [blocks[0]!];
  let tail: string[] = [];
  for (let i = blocks.length - 1; i >= 1; i -= 1) {
    const candidate = [blocks[i]!, ...tail];
    const omitted = i - 1;
    const note = omitted > 0 ? [t.omitted(omitted)] : [];
    if (size([header, ...kept, ...note, ...candidate]) > maxChars) break;
    tail = candidate;
  }
  const omitted = blocks.length - 1 - tail.length;
  kept = [...kept, ...(omitted > 0 ? [t.omitted(omitted)] : []), ...tail];
  const text = [header, ...kept].join('\n');
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1)}…`;
}
