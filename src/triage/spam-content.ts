/**
 * The built-in spam check, for mail that carries no spam filter's verdict: a sum of points over
 * signs that unsolicited mail shows and a customer's question rarely does (src/triage/spam-phrases.ts
 * for the words; here the shape: deceptive links, HTML without text, shouting subjects, a sender
 * name that pretends to be another address, no recipients). Pure and small, no model to load.
 *
 * Conservative by design: a customer's mail held as spam gets no answer, which is worse than a
 * spam mail that costs one draft a reviewer rejects. So no single phrase reaches the threshold (only
 * GTUBE, the filters' own test string, does), a message is held only when part of its points come
 * from what it says (Kind), and a reply within a thread (In-Reply-To, quoted text) takes points
 * away. Measured figures and the corpora: docs/pipeline.md ("Spam").
 */
import { GTUBE, SPAM_PHRASES } from './spam-phrases';
import { spamWordsScore } from './spam-words';

/** The bodies the check reads (what the parser found), cut to a size a regular expression can scan quickly. */
export interface SpamBody {
  text: string;
  html: string | null;
}

export interface SpamContentInput {
  from: string | null;
  fromName?: string;
  replyTo: string | null;
  subject: string;
  headers: Record<string, string[]>;
  /** Content types of the parts below the top level (attachments among them), lower-case. */
  partTypes?: string[];
  to?: string[];
  cc?: string[];
  body?: SpamBody;
}

/** Points from which the built-in check calls a message spam. */
export const SPAM_CONTENT_THRESHOLD = 5;
/** Of those, at least this many must come from what the message says (see Kind). */
export const SPAM_CONTENT_SAYS = 2;
/** Points for the learnt word list's indicator: the first pair whose bound it reaches. */
export const LEARNT_POINTS: ReadonlyArray<readonly [number, number]> = [
  [0.99, 4],
  [0.98, 3],
  [0.95, 2],
  [0.9, 1],
];
/** At or below this indicator, the learnt list reads a message as ordinary correspondence. */
export const LEARNT_HAM = 0.1;
/** How much of each body is read. */
export const SPAM_BODY_CHARS = 100_000;

export interface SpamContentScore {
  points: number;
  /** The points of the signs that say something (wording, deception), as opposed to the message's shape. */
  says: number;
  /** The signs that added points, with their points, largest first. */
  signs: Array<{ sign: string; points: number }>;
}

const FREEMAIL =
  /@(gmail|googlemail|yahoo|ymail|hotmail|outlook|live|msn|aol|gmx|web|mail|yandex|protonmail|icloud|t-online|freenet)\.[a-z.]+$/i;
const SHORTENER = /https?:\/\/(bit\.ly|tinyurl\.com|goo\.gl|t\.co|ow\.ly|is\.gd|buff\.ly|cutt\.ly|rebrand\.ly|shorturl\.at|tiny\.cc)\//i;
// Programs, scripts and macro documents: what malware mail carries, and no customer sends support.
const RUNNABLE =
  /^application\/(x-msdownload|x-msdos-program|x-ms-dos-executable|x-dosexec|x-executable|x-sh|x-bat|javascript|x-javascript|hta|x-ms-shortcut|vnd\.ms-(word|excel|powerpoint)\.[a-z.]*macroenabled[a-z.0-9]*)$/i;
const ARCHIVE = /^application\/(zip|x-zip-compressed|x-rar(-compressed)?|vnd\.rar|x-7z-compressed|x-ace-compressed|x-iso9660-image)$/i;
// A sum of six digits or more with a currency: what advance-fee fraud and prize mail promise.
const LARGE_SUM =
  /(us\$|\$|€|£|usd|eur|gbp)\s?\d{1,3}([,.' ]\d{3}){1,}([.,]\d\d)?|\d{1,3}([,.' ]\d{3}){1,}([.,]\d\d)?\s?(us\$|\$|€|£|usd|eur|gbp|dollars?|euros?)/gi;
const IP_URL = /https?:\/\/\d{1,3}(\.\d{1,3}){3}([:/]|\b)/i;

function domainOf(address: string | null | undefined): string {
  return (address ?? '').split('@')[1]?.toLowerCase() ?? '';
}

/** The registrable part, roughly: the last two labels (mail.paypal.com and paypal.com agree). */
function base(domain: string): string {
  return domain.split('.').slice(-2).join('.');
}

/** How many links the deceptive-link check reads: enough for any mail, bounded for a hostile one. */
const MAX_ANCHORS = 200;

/**
 * `<a href="http://evil.example">https://www.bank.example/login</a>`: the shown address is another
 * site. A scan from one `<a` to the next with bounded slices, not one regular expression over the
 * whole HTML, which backtracks quadratically on a long unclosed tag.
 */
function deceptiveLinks(html: string): number {
  let n = 0;
  let at = 0;
  for (let seen = 0; seen < MAX_ANCHORS; seen++) {
    const start = html.slice(at).search(/<a\b/i);
    if (start < 0) break;
    const from = at + start;
    at = from + 2;
    const tag = html.slice(from, from + 2000);
    const close = tag.indexOf('>');
    if (close < 0) continue;
    const target = /\bhref\s*=\s*["']?https?:\/\/([^/:?#"'\s>]+)/i.exec(tag.slice(0, close))?.[1];
    const inner = html.slice(from + close + 1, from + close + 301);
    const end = inner.search(/<\/a>/i);
    if (!target || end < 0) continue;
    // eslint-disable-next-line regexp/no-super-linear-move -- a link's text, at most 300 characters (sliced above)
    const shown = /(?:https?:\/\/)?((?:[a-z0-9-]+\.)+[a-z]{2,})/i.exec(inner.slice(0, end).replace(/<[^>]*>/g, ''))?.[1];
    if (shown && base(shown.toLowerCase()) !== base(target.toLowerCase())) n++;
  }
  return n;
}

function urls(text: string): string[] {
  return [...new Set(text.match(/https?:\/\/[^\s"'<>)]+/gi) ?? [])];
}

function largeSum(text: string): boolean {
  for (const m of text.matchAll(LARGE_SUM)) {
    const digits = m[0].replace(/[.,' ]\d\d$/, '').replace(/\D/g, '');
    if (Number(digits) >= 100_000) return true;
  }
  return false;
}

function letters(s: string): { upper: number; all: number } {
  const all = (s.match(/\p{L}/gu) ?? []).length;
  const upper = (s.match(/\p{Lu}/gu) ?? []).length;
  return { upper, all };
}

/**
 * `says`: what the message claims or hides (wording, a deceptive link or sender name, a large sum,
 * an advertising tag, a program attached). `looks`: how it is built (links, HTML, missing headers).
 * Mail that only looks odd is not held: a customer's mail through a badly made web form looks odd too.
 */
type Kind = 'says' | 'looks';
type Add = (sign: string, points: number, kind?: Kind) => void;

function headerSigns(m: SpamContentInput, add: Add): void {
  const subject = m.subject;
  const caps = letters(subject);
  if (caps.all >= 10 && caps.upper / caps.all > 0.6) add('subject in capitals', 1.5);
  if (/!{2,}|\${2,}|€{2,}/.test(subject)) add('subject shouts (!!, $$)', 1);
  // Padding, then a tracking number: "Your Vacation Winning !             35001".
  // eslint-disable-next-line regexp/no-super-linear-move -- the subject's last 200 characters only
  if (/\s{5,}\S*\d{3}\s*$/.test(subject.slice(-200))) add('subject padded with a tracking number', 2);
  if (/^(adv|ad|werbung|anzeige)\s*:/i.test(subject)) add('subject marked as advertising', 3, 'says');
  const name = (m.fromName ?? '').trim();
  const named = /(?<![\w.+-])[\w.+-]+@([\w-]+\.)+[a-z]{2,}/i.exec(name)?.[0];
  if (named && domainOf(named) && base(domainOf(named)) !== base(domainOf(m.from))) add('sender name shows another address', 2.5, 'says');
  if (/\d{5,}/.test((m.from ?? '').split('@')[0] ?? '')) add('sender address with a long number', 1);
  const recipients = [...(m.to ?? []), ...(m.cc ?? [])];
  const toLine = m.headers.to?.[0] ?? '';
  if (recipients.length === 0 || /undisclosed|recipient list suppressed/i.test(toLine)) add('no named recipient', 1);
  if (m.replyTo && FREEMAIL.test(m.replyTo) && base(domainOf(m.replyTo)) !== base(domainOf(m.from)) && !FREEMAIL.test(m.from ?? ''))
    add('replies go to a free mail address', 1);
  if (!m.headers['message-id']) add('no Message-ID', 0.5);
  if (!m.headers.date) add('no Date', 0.5);
  // A reply within a conversation or quoted text: what a person answering does.
  if (m.headers['in-reply-to'] || m.headers.references) add('a reply in a thread', -2);
}

function bodySigns(body: SpamBody, add: Add): void {
  const text = body.text.slice(0, SPAM_BODY_CHARS);
  const html = (body.html ?? '').slice(0, SPAM_BODY_CHARS);
  if (text.includes(GTUBE) || html.includes(GTUBE)) add('GTUBE test string', 20, 'says');
  if (/^(>|&gt;)|^(am|on) .{5,80}(schrieb|wrote)/im.test(text)) add('quotes an earlier message', -1.5);
  const words = (text.match(/\p{L}{2,}/gu) ?? []).length;
  const links = urls(`${text} ${html}`);
  if (html && deceptiveLinks(html) > 0) add('a link shows one address and leads to another', 3, 'says');
  if (links.some((u) => IP_URL.test(u))) add('a link to a bare IP address', 2);
  if (links.some((u) => SHORTENER.test(u))) add('a shortened link', 1);
  if (links.length >= 3 && words < links.length * 15) add('many links, little text', 1.5);
  if (html && /(display\s*:\s*none|font-size\s*:\s*[01](px|pt)?\b|visibility\s*:\s*hidden)/i.test(html) && words < 400)
    add('hidden text in the HTML', 1);
  if (html && /<img\b/i.test(html) && words < 40) add('pictures instead of text', 1.5);
  const caps = letters(text);
  if (caps.all >= 200 && caps.upper / caps.all > 0.4) add('body in capitals', 1.5);
  if ((text.match(/!{3,}/g) ?? []).length >= 2) add('!!! repeated', 1);
  if (largeSum(text)) add('a large sum of money', 2, 'says');
}

/**
 * The learnt word list (src/triage/spam-words.ts): points for wording that public spam uses and
 * ordinary mail does not, never enough alone to hold a message (it was learnt on English mail of
 * 2002–2005, and a support mailbox's own words, "payment", "account", "dear Sir", lean its way), and
 * a point off for mail that reads like ordinary correspondence.
 */
function learntSigns(m: SpamContentInput, add: Add): void {
  if (!m.body) return;
  const { indicator, top } = spamWordsScore(m.subject, m.body.text.slice(0, SPAM_BODY_CHARS), m.body.html);
  const words = top.length ? ` (${top.join(', ')})` : '';
  for (const [atLeast, points] of LEARNT_POINTS) {
    if (indicator >= atLeast) {
      add(`wording of known spam${words}`, points, 'says');
      return;
    }
  }
  if (indicator <= LEARNT_HAM) add('wording of ordinary correspondence', -1);
}

function attachmentSigns(m: SpamContentInput, words: number, add: Add): void {
  const types = m.partTypes ?? [];
  if (types.some((t) => RUNNABLE.test(t))) add('a program, script or macro document attached', 2.5, 'says');
  else if (types.some((t) => ARCHIVE.test(t)) && words < 60) add('an archive with hardly any text', 1.5);
}

/** The points of one message and the signs behind them. */
export function spamContentScore(m: SpamContentInput): SpamContentScore {
  const signs: Array<{ sign: string; points: number; kind: Kind }> = [];
  const add: Add = (sign, points, kind = 'looks') => signs.push({ sign, points, kind });
  headerSigns(m, add);
  if (m.body) bodySigns(m.body, add);
  learntSigns(m, add);
  attachmentSigns(m, (m.body?.text.match(/\p{L}{2,}/gu) ?? []).length, add);
  const haystack = `${m.subject}\n${(m.body?.text ?? '').slice(0, SPAM_BODY_CHARS)}`;
  // Each phrase counts once, however often it occurs: repetition is no second sign.
  for (const phrase of SPAM_PHRASES) if (phrase.pattern.test(haystack)) add(`"${phrase.name}" wording`, phrase.points, 'says');
  signs.sort((a, b) => b.points - a.points);
  const sum = (list: typeof signs) => Math.round(list.reduce((s, x) => s + x.points, 0) * 10) / 10;
  return {
    points: sum(signs),
    says: sum(signs.filter((x) => x.kind === 'says')),
    signs: signs.map(({ sign, points }) => ({ sign, points })),
  };
}

// A forward as mail programs write it: the subject's prefix and the line above the forwarded message.
const FORWARD_SUBJECT = /^\s*(fwd?|wg|tr|rv|enc|doorst)\s*:/i;
const FORWARD_LINE =
  /^(?:[^\S\n\r\u2028\u2029]|>)*(-{2,}\s*)?(forwarded message|weitergeleitete nachricht|original message|ursprüngliche nachricht|begin forwarded message|anfang der weitergeleiteten nachricht|message transféré|mensaje reenviado)/im;

/**
 * A person forwarding a message: customers forward the phishing that pretends to be us and ask
 * whether it is real. Its wording is the spam's, and the question deserves an answer, so the
 * built-in check leaves forwards alone (a spam filter's verdict still counts).
 */
export function isForward(m: SpamContentInput & { attachesMessage?: boolean }): boolean {
  if (!FORWARD_SUBJECT.test(m.subject)) return false;
  return m.attachesMessage === true || FORWARD_LINE.test((m.body?.text ?? '').slice(0, SPAM_BODY_CHARS));
}

/** The reason line when the built-in check holds a message, or null. */
export function spamContent(m: SpamContentInput & { attachesMessage?: boolean }, threshold = SPAM_CONTENT_THRESHOLD): string | null {
  if (isForward(m)) return null;
  const score = spamContentScore(m);
  if (score.points < threshold || score.says < SPAM_CONTENT_SAYS) return null;
  const top = score.signs
    .filter((s) => s.points > 0)
    .slice(0, 4)
    .map((s) => s.sign)
    .join(', ');
  return `built-in spam check: ${score.points} points (≥ ${threshold}): ${top}`;
}
