/**
 * What we know about one correspondent from their stored mail: names, addresses, numbers and
 * signature lines. Masking by what is known catches what no pattern can (a first name alone, a
 * street written the customer's own way); the patterns of mask-personal-data catch the rest.
 */

export interface KnownPersonalData {
  /** Display names, signature names and name-like parts of their addresses. */
  names: string[];
  emails: string[];
  /** Customer numbers, phone numbers and other references seen in their mail. */
  numbers: string[];
  /** Lines of their signature (street, town, company): masked whole and part by part. */
  lines: string[];
}

/** One stored mail of the correspondent (or its thread), as the store has it. */
export interface KnownMail {
  fromName?: string | null;
  fromAddress?: string | null;
  replyToName?: string | null;
  replyToAddress?: string | null;
  /** The body, inbound mail only: our own replies carry our signature, not theirs. */
  text?: string | null;
}

export const NO_KNOWN_DATA: KnownPersonalData = { names: [], emails: [], numbers: [], lines: [] };

const CLOSING =
  /^(?:best(?: regards| wishes)?|kind regards|regards|many thanks|thanks|thank you|cheers|mit freundlichen grüßen|freundliche grüße|viele grüße|beste grüße|liebe grüße|lg|mfg|gruß|cordialement|bien à vous|salutations|merci|saludos(?: cordiales)?|atentamente|un saludo|gracias)[,.!]?$/iu;
const SIGNATURE_LINES = 5;
const REFERENCE =
  /\b(?:[A-Z]{1,4}-\d{3,}(?:[-/]\d+)*|(?:Kundennummer|Kunden-?Nr\.?|customer (?:number|no\.?|ID)|numéro (?:de )?client|número de cliente)\s*(?::\s*)?[A-Z0-9-]*\d[A-Z0-9-]*)/giu;
const PHONE = /(?:\+|\b00)\d{1,3}(?:[ ]?[/.-]?[ ]?\(?\d{1,6}\)?){1,6}|\b0(?:\d{1,5}(?:[ /.-]\d{2,}){1,4}|\d{3,}(?:[ /.-]\d{2,}){0,3})\b/g;

/** Lines after the closing of a mail (up to five), or after the `-- ` delimiter. */
export function signatureLines(text: string): string[] {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  const quoted = lines.findIndex((l) => l.startsWith('>') || /^(?:on .* wrote:|am .* schrieb .*:|le .* a écrit|el .* escribió)/iu.test(l));
  const own = quoted >= 0 ? lines.slice(0, quoted) : lines;
  const start = own.findIndex((l) => l === '--' || CLOSING.test(l));
  if (start < 0) return [];
  return own.slice(start + 1, start + 1 + SIGNATURE_LINES).filter((l) => l.length >= 3 && l.length <= 120 && !CLOSING.test(l));
}

/** Name-like parts of an address's local part: `sarah.thompson@…` → Sarah, Thompson. */
function localParts(address: string): string[] {
  const local = address.split('@')[0] ?? '';
  return local.split(/[._+-]/).filter((p) => /^\p{L}{3,}$/u.test(p));
}

const add = (set: Set<string>, value: string | null | undefined) => {
  const v = value?.trim();
  if (v) set.add(v);
};

/** Everything personal the mails tell about their sender, deduplicated. */
export function knownFromMails(mails: KnownMail[]): KnownPersonalData {
  const names = new Set<string>();
  const emails = new Set<string>();
  const numbers = new Set<string>();
  const lines = new Set<string>();
  for (const m of mails) {
    add(names, m.fromName);
    add(names, m.replyToName);
    for (const a of [m.fromAddress, m.replyToAddress]) {
      if (!a) continue;
      add(emails, a);
      for (const p of localParts(a)) add(names, p);
    }
    const text = m.text ?? '';
    for (const r of text.matchAll(REFERENCE)) add(numbers, r[0].replace(/^[^\d]*?([A-Z]{1,4}-\d|\d)/iu, '$1'));
    for (const p of text.matchAll(PHONE)) if (p[0].replace(/\D/g, '').length >= 7) add(numbers, p[0]);
    for (const e of text.matchAll(/(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g)) add(emails, e[0]);
    const sig = signatureLines(text);
    // The first signature line is usually the name; the rest address, company, phone.
    sig.forEach((l, i) => (i === 0 && /^[\p{L} .'-]+$/u.test(l) ? add(names, l) : add(lines, l)));
  }
  return { names: [...names], emails: [...emails], numbers: [...numbers], lines: [...lines] };
}

/** Two sets of known data as one. */
export function mergeKnown(a: KnownPersonalData, b: KnownPersonalData): KnownPersonalData {
  const u = (x: string[], y: string[]) => [...new Set([...x, ...y])];
  return { names: u(a.names, b.names), emails: u(a.emails, b.emails), numbers: u(a.numbers, b.numbers), lines: u(a.lines, b.lines) };
}
