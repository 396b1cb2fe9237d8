/**
 * What the injection guard reads, cut into what each piece of a mail is. A sentence means
 * something different in the customer's own words than in their signature, a legal disclaimer,
 * the header block of a forwarded mail, or an invoice they attached: "IT Coordinator, Harbourline
 * Logistics" is a role claim only in the words of the mail, and "notify the sender and delete this
 * mail" is boilerplate, not a request. So the guard scores the customer's own words by meaning,
 * and everything else only where it speaks to the assistant (src/drafting/intent-detector.ts).
 */
import { remove as removeConfusables } from 'confusables';

/** Zero-width characters, joiners and soft hyphens split words to slip past any check. */
const INVISIBLE =
  /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF]/g;

/**
 * Letters drawn like Latin ones (Cyrillic "е", Armenian "օ", small capitals "ᴀ", …), folded by the
 * Unicode confusables table of the `confusables` package — only inside a word that also has ASCII
 * letters ("plеase" with a Cyrillic е), so a Russian or Greek sentence stays what it is, and never
 * the letters with diacritics a Latin language writes (ü, ß, é: U+00C0–U+024F), which the package
 * would fold too ("ß" to "B"). A full TR39 skeleton would also fold Latin letters among themselves
 * ("m" to "rn"), which breaks every word the checks look for.
 */
const WORD = /[\p{L}\p{M}]+/gu;
const ASCII_LETTER = /[A-Za-z]/;
const WRITTEN_LATIN = /[\u0000-\u024F]/;
const NOT_WRITTEN_LATIN = /[^\u0000-\u024F]/;

function foldLetter(c: string): string {
  if (WRITTEN_LATIN.test(c)) return c;
  const folded = removeConfusables(c);
  return /^[A-Za-z]$/.test(folded) ? folded : c;
}

/** A word of ASCII letters with a look-alike of another script in it, folded; else undefined. */
export function foldedLookAlikes(word: string): string | undefined {
  // Most words are plain ASCII: nothing to fold, and no per-letter work on long mail.
  if (!NOT_WRITTEN_LATIN.test(word) || !ASCII_LETTER.test(word)) return undefined;
  const folded = [...word].map(foldLetter).join('');
  return folded === word ? undefined : folded;
}

/** NFKC (full-width and styled letters), invisible characters removed, look-alike letters folded. */
export function normaliseForGuard(text: string): string {
  return text
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .replace(WORD, (word) => foldedLookAlikes(word) ?? word);
}

export type RegionKind = 'words' | 'signature' | 'disclaimer' | 'forwarded-headers';

export interface Region {
  kind: RegionKind;
  text: string;
}

/**
 * A line that closes the message and opens the signature: a greeting, a team's name ("The Mercury
 * Team", "Ihr Kundenservice-Team"), or the closing formula before it ("If you have any questions,
 * just reply to this email", "Bei Fragen stehen wir gern zur Verfügung") that notifications and
 * company mail put above their name.
 */
const SIGN_OFF =
  /^\s*((the|your|ihr|dein|euer|das|l['’]équipe)\s+[\p{L}\p{N}&.' -]{0,40}?team\b.{0,60}|team\s+[\p{L}\p{N}&.' -]{1,40}|if you have any (further |more |other )?questions\b.*|(bei|für) (weitere(n)? )?(fragen|rückfragen)\b.*|pour toute (question|information)\b.*|--\s*|(mit )?(freundlichen|besten|herzlichen|lieben|schönen|viele|beste|liebe) grüß?(ss)?en?\b.*|(viele |beste |liebe )?grüße\b.*|gruß\b.*|(mfg|lg|vg|best|cheers)[,.!]?(\s+\S+){0,3}|(best|kind|warm|many)\s+(regards|wishes)\b.*|regards\b.*|(many )?thanks?( you)?\b.{0,40}|sincerely\b.*|yours( faithfully| sincerely| truly)?\b.*|cordialement\b.*|bien à vous\b.*|saludos\b.*|sent from my \w.*|von meinem \w+ gesendet.*)$/iu;

/** Header lines of a forwarded or quoted mail ("From: …", "Von: …"), and the markers before them. */
const FORWARD_HEADER =
  /^\s*(?:(?:-{2,}|_{2,})\s*(?:forwarded message|original message|weitergeleitete nachricht|ursprüngliche nachricht|message d'origine)\s*(?:(?:-{2,}|_{2,})\s*)?|(?:begin forwarded message|anfang der weitergeleiteten nachricht):?\s*|(?:from|to|cc|sent|date|subject|von|an|gesendet|datum|betreff|de|à|objet|envoyé)\s*:.*(?:[\n\r\u2028\u2029]\s*)?)$/i;

/**
 * Legal boilerplate under a mail: confidentiality notices and "if you are not the addressee"
 * clauses, in the words companies put there.
 */
const DISCLAIMER =
  /\b(confidential|privileged|intended (solely|only) for|not the intended recipient|received (this|it) in error|notify the sender|delete (it|this|the) (e-?mail|message)?|disclosure, copying|unauthori[sz]ed (use|disclosure|copying)|vertraulich|rechtlich geschützt|nicht der (richtige|beabsichtigte) (adressat|empfänger)|irrtümlich erhalten|informieren sie (bitte )?(sofort |umgehend )?den absender|vernichten sie|unbefugte weitergabe|unerlaubte(s)? kopieren)\b/i;

/** At most this many lines after a sign-off are taken for a signature; more is the mail going on. */
const MAX_SIGNATURE_LINES = 8;

/**
 * The regions of a mail's own text (its body without quoted lines): the customer's words, then
 * per line what it is. A sign-off starts the signature when at most MAX_SIGNATURE_LINES follow it
 * (else the mail goes on and the line was a sentence); disclaimers are recognised anywhere.
 */
export function regionsOf(body: string): Region[] {
  const lines = body.split(/\r?\n/);
  let signatureFrom = lines.length;
  for (let i = lines.length - 1; i >= 0 && lines.length - i <= MAX_SIGNATURE_LINES + 1; i -= 1) {
    if (SIGN_OFF.test(lines[i]!)) signatureFrom = i;
  }
  const regions: Region[] = [];
  const push = (kind: RegionKind, line: string): void => {
    const last = regions[regions.length - 1];
    if (last?.kind === kind) last.text += `\n${line}`;
    else regions.push({ kind, text: line });
  };
  let inDisclaimer = false;
  lines.forEach((line, i) => {
    // A blank line ends a disclaimer paragraph; its wrapped lines before that belong to it.
    if (!line.trim()) return void (inDisclaimer = false);
    if (FORWARD_HEADER.test(line)) return push('forwarded-headers', line);
    if (inDisclaimer || DISCLAIMER.test(line)) return void ((inDisclaimer = true), push('disclaimer', line));
    push(i >= signatureFrom ? 'signature' : 'words', line);
  });
  return regions.filter((r) => r.text.trim());
}
