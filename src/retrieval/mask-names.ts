/**
 * Names that no title or greeting announces, found with a gazetteer: "Torsten Brinkmann",
 * "your brother, Seán Mac Suibhne", "Aoife Nic Giolla Phádraig", a signature under "Kind regards".
 * Pure: the gazetteer comes in through its port.
 *
 * German writes every noun with a capital, so a capital alone says nothing. A word is masked as
 * a name only when the gazetteer or the form of the word says so:
 * - a known first name followed by a capitalised word that is a known surname or no everyday
 *   word ("Anna Bauer", "Sabine Krämer"; not "Rose Garten"), and the surname parts after it;
 * - a known first name on its own when it is no everyday word ("Anneliese", not "Will" or "Mark");
 * - a surname by its form: O'/Mc/Mac/Fitz joined to a capital (O'Sullivan, McCarthy), an inner
 *   capital (DeShawn), or an Irish particle before a capital (Nic, Ní, Mac, Ó, Uí: "Ní Bhriain"),
 *   with the given name before it when that is no everyday word;
 * - the first line under a closing ("Kind regards") when it holds a known first name, or holds
 *   only a known surname and words that are no everyday words.
 */
import type { NameGazetteer } from './name-gazetteer.port';

interface Word {
  text: string;
  start: number;
  end: number;
  /** What stands between the previous word and this one. */
  gap: string;
}

const WORD = /\[name\]|\p{L}(?:[\p{L}’'-]*\p{L})?\.?/gu;
const IRISH_PARTICLE = /^(?:Nic|Ní|Mac|Mhic|Ó|Ua|Uí|Ní)$/u;
const LINKING_PARTICLE = /^(?:von|van|der|den|de|du|di|da|del|dos|le|la|zu|ter|ten)$/u;
const SURNAME_FORM = /^(?:O[’']|Mc|Mac|Fitz|D[’'])\p{Lu}\p{Ll}{2,}|^(?:De|La|Le|Di|Da|Van|Von)\p{Lu}\p{Ll}{2,}$/u;
const CLOSING =
  /^(?:best(?: regards| wishes)?|kind regards|regards|warm regards|many thanks|thanks|thank you|cheers|sincerely|yours sincerely|yours faithfully|all the best|mit freundlichen grüßen|freundliche grüße|freundliche grüsse|viele grüße|beste grüße|liebe grüße|herzliche grüße|lg|mfg|gruß|grüße|cordialement|bien cordialement|bien à vous|salutations|meilleures salutations|merci)$/iu;

function wordsOf(text: string): Word[] {
  const out: Word[] = [];
  let last = 0;
  for (const m of text.matchAll(WORD)) {
    // A trailing dot belongs to an abbreviation ("St."), not to a name at a sentence's end.
    const raw = m[0].endsWith('.') && m[0].length > 3 ? m[0].slice(0, -1) : m[0];
    const start = m.index;
    if (text[start - 1] === '[') continue; // inside another placeholder
    out.push({ text: raw, start, end: start + raw.length, gap: text.slice(last, start) });
    last = start + raw.length;
  }
  return out;
}

const PLACEHOLDER = '[name]';
// Words that stand before a name without being one: a greeting or a title.
const GREETING_OR_TITLE =
  /^(?:Hi|Hey|Hello|Dear|Hallo|Moin|Servus|Grüezi|Liebe[rs]?|Frau|Herrn?|Fr|Hr|Mr|Mrs|Ms|Mx|Miss|Dr|Prof|Mag|Ing|Sir|Dame|Madame|Monsieur|Mme|Mlle|Bonjour|Bonsoir|Salut|Cher|Chère|Hola|Querid[oa]|Estimad[oa]|Señora?|Sra?|Doña|Don)$/u;
/** A given name before a surname already masked (by what is known): "Elfriede [name]". */
const afterGiven = (word: string, next: string) => next === PLACEHOLDER && !GREETING_OR_TITLE.test(word.replace(/\.$/, ''));
const capitalised = (w: string) => /^\p{Lu}/u.test(w) && !/^[\p{Lu}.]+$/u.test(w.replace(/[’'-]/g, ''));
/** Next to the previous word on the same line, nothing but a space between. */
const joined = (w: Word) => /^[ \u00a0]$/.test(w.gap);

/** What the rules ask of a word, answered with the gazetteer. */
interface NameTests {
  firstName(w: string): boolean;
  surnameForm(w: string): boolean;
  surnameLike(w: string): boolean;
  /** A surname the gazetteer knows, or two known names joined ("Meier-Baumann"), no everyday word. */
  knownSurname(w: string): boolean;
  everyday(w: string): boolean;
  isSurname(w: string): boolean;
}

function nameTests(g: NameGazetteer): NameTests {
  const parts = (w: string) => w.split('-').filter(Boolean);
  const everyday = (w: string) => parts(w).some((p) => g.isCommonWord(p));
  const surnameForm = (w: string) => SURNAME_FORM.test(w);
  return {
    firstName: (w) => capitalised(w) && parts(w).every((p) => g.isFirstName(p)),
    surnameForm,
    surnameLike: (w) =>
      w === PLACEHOLDER ||
      (capitalised(w) && (surnameForm(w) || g.isSurname(w) || parts(w).some((p) => g.isSurname(p)) || !g.isCommonWord(w))),
    knownSurname: (w) =>
      capitalised(w) && !everyday(w) && (g.isSurname(w) || (w.includes('-') && parts(w).every((p) => g.isSurname(p) || g.isFirstName(p)))),
    everyday,
    isSurname: (w) => g.isSurname(w),
  };
}

/** Marks the surname parts from index j on, particles between them included. */
function markSurnames(ws: Word[], j: number, mark: Set<number>, n: NameTests): void {
  for (let k = j; k < ws.length && joined(ws[k]!); k++) {
    const t = ws[k]!.text;
    if (LINKING_PARTICLE.test(t) || IRISH_PARTICLE.test(t)) continue;
    if (!n.surnameLike(t) || (n.firstName(t) && n.everyday(t) && !n.isSurname(t))) break;
    for (let p = j; p <= k; p++) mark.add(p);
  }
}

/** The given name before a surname found by its form, when it is no everyday word. */
function markGivenBefore(ws: Word[], i: number, mark: Set<number>, n: NameTests): void {
  const prev = ws[i - 1];
  if (prev && joined(ws[i]!) && capitalised(prev.text) && (n.firstName(prev.text) || !n.everyday(prev.text))) mark.add(i - 1);
}

function byGazetteer(ws: Word[], mark: Set<number>, n: NameTests): void {
  for (let i = 0; i < ws.length; i++) {
    const t = ws[i]!.text;
    const next = ws[i + 1];
    if (IRISH_PARTICLE.test(t) && next && joined(next) && capitalised(next.text) && !n.everyday(next.text)) {
      mark.add(i);
      markSurnames(ws, i + 1, mark, n);
      markGivenBefore(ws, i, mark, n);
    } else if (n.firstName(t)) {
      let j = i + 1;
      while (ws[j] && joined(ws[j]!) && LINKING_PARTICLE.test(ws[j]!.text)) j++;
      const before = mark.size;
      if (ws[j] && joined(ws[j]!)) markSurnames(ws, j, mark, n);
      if (mark.size > before || !n.everyday(t)) for (let p = i; p < j; p++) mark.add(p);
    } else if (n.surnameForm(t) || (t.includes('-') && n.knownSurname(t))) {
      mark.add(i);
      markGivenBefore(ws, i, mark, n);
    } else if (capitalised(t) && !n.everyday(t) && next && joined(next) && (n.knownSurname(next.text) || afterGiven(t, next.text))) {
      // A given name the lists lack ("Gareth", "Urs") before a surname they know.
      mark.add(i);
      markSurnames(ws, i + 1, mark, n);
    }
  }
}

/** The first line under a closing ("Kind regards", or "Thanks, Morag MacLeod" on one line). */
function bySignature(text: string, ws: Word[], mark: Set<number>, n: NameTests): void {
  let offset = 0;
  let afterClosing = false;
  for (const line of text.split('\n')) {
    const body = line.replace(/^[>\s]+/, '').trim();
    const [closing, rest] = body.split(/,\s*/, 2);
    if (closing && CLOSING.test(closing.replace(/[.!]$/, '')) && !rest) afterClosing = true;
    else if (body) {
      const candidate = closing && CLOSING.test(closing) && rest ? rest : afterClosing ? body : '';
      if (candidate) markLine(ws, offset + line.indexOf(candidate), candidate, mark, n);
      afterClosing = false;
    }
    offset += line.length + 1;
  }
}

/** A line of one to four capitalised words is a name when it holds a first name, or only surname-like words. */
function markLine(ws: Word[], from: number, line: string, mark: Set<number>, n: NameTests): void {
  const idx = ws.flatMap((w, i) => (w.start >= from && w.end <= from + line.length ? [i] : []));
  const names = idx.filter((i) => !LINKING_PARTICLE.test(ws[i]!.text) && !IRISH_PARTICLE.test(ws[i]!.text));
  if (names.length === 0 || names.length > 4 || !/^[\p{L}’' .-]+$/u.test(line.replace(/[.!]$/, ''))) return;
  if (!names.every((i) => capitalised(ws[i]!.text))) return;
  const texts = names.map((i) => ws[i]!.text);
  const isName =
    texts.some((t) => n.firstName(t)) || (texts.some((t) => n.knownSurname(t) || n.surnameForm(t)) && texts.every((t) => !n.everyday(t)));
  if (isName) for (const i of idx) mark.add(i);
}

/** The text with every marked run of words (on one line) as one `[name]`. */
function replaceMarked(text: string, ws: Word[], mark: Set<number>): string {
  let out = '';
  let last = 0;
  const sorted = [...mark].sort((a, b) => a - b);
  for (let s = 0; s < sorted.length; s++) {
    const first = sorted[s]!;
    let end = first;
    while (sorted[s + 1] === end + 1 && joined(ws[end + 1]!)) end = sorted[++s]!;
    out += `${text.slice(last, ws[first]!.start)}${PLACEHOLDER}`;
    last = ws[end]!.end;
  }
  return out + text.slice(last);
}

/** The masker of names for one gazetteer. */
export function nameMasker(g: NameGazetteer): (text: string) => string {
  const n = nameTests(g);
  return function maskNames(text: string): string {
    const ws = wordsOf(text);
    const mark = new Set<number>();
    byGazetteer(ws, mark, n);
    bySignature(text, ws, mark, n);
    return mark.size ? replaceMarked(text, ws, mark) : text;
  };
}
