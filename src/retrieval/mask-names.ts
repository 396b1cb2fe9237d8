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
 *   only a known surname and words that are no everyday words;
 * - the capitalised words after a word for a relative, neighbour or colleague ("your daughter
 *   Eilidh", "Ihre Mitbewohnerin Seraina Caduff"), when the first is a given name or no everyday word;
 * - every other place in the text where a word found as a name above, or after a title, recurs
 *   ("Herr Schäfer" … "Schäfer & Söhne GmbH").
 * Given names of the wider lists (isListedFirstName) count before a surname, under a closing, after
 * a relative's word and joined by a hyphen ("Klaus-Dieter"), not on their own.
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
// Closings of German, English, French, Irish, Scottish Gaelic and Welsh mail ("Le meas, Pádraig").
const CLOSING =
  /^(?:best(?: regards| wishes)?|kind(?:est)? regards|regards|warm(?:est)? regards|warm wishes|many thanks|thanks(?: again)?|thank you|with thanks|cheers|take care|sincerely|yours(?: sincerely| faithfully| truly)?|all the best|mit freundlichen gr[üu](?:ß|ss)en|(?:freundliche|viele|beste|liebe|herzliche|schöne) gr[üu](?:ß|ss)e|grüessli|hochachtungsvoll|danke(?: schön)?|lg|mfg|gruß|grüße|cordialement|bien cordialement|bien à (?:vous|toi)|amicalement|(?:sincères |meilleures )?salutations|merci(?: beaucoup)?|(?:is mise )?le meas|le dea-mhéin|le gach dea-ghuí|slán|go raibh maith agat|le (?:deagh )?dhùrachd|cofion(?: gorau)?|diolch)$/iu;
/**
 * Words for the people a customer names in passing: relatives, neighbours, colleagues, a
 * landlord, our technician (German, English, French). The capitalised words after one are a name.
 */
const RELATION =
  /^(?:son|daughter|wife|husband|spouse|partner|fianc[ée]e?|brother|sister|mother|father|mum|mom|dad|grandson|granddaughter|nephew|niece|cousin|uncle|aunt|neighbou?r|colleague|friend|flatmate|roommate|housemate|landlord|landlady|tenant|carer|caregiver|technician|engineer|agent|advis[eo]r|Sohn|Tochter|Ehefrau|Ehemann|Mann|Gatte|Gattin|Partner(?:in)?|Lebens(?:gefährt|partner)(?:e|in)|Verlobte[rn]?|Bruder|Schwester|Mutter|Vater|Enkel(?:in)?|Neffe|Nichte|Cousine|Onkel|Tante|Schwieger(?:sohn|tochter|mutter|vater)|Nachbar(?:in|n)?|Kolleg(?:e|in|en)|Freund(?:in)?|Mitbewohner(?:in)?|Vermieter(?:in)?|Mieter(?:in)?|Betreuer(?:in)?|Techniker(?:in)?|fils|fille|épouse|époux|mari|femme|conjointe?|compagne|compagnon|frère|s(?:œ|oe)ur|mère|père|voisine?|collègue|propriétaire|locataire|amie?|neveu|nièce|cousine|oncle|tante|technicien(?:ne)?)$/iu;

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
  /** A given name of the frequency lists or the wider ones, for where the context says a name stands. */
  givenName(w: string): boolean;
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
  const given = (p: string) => g.isFirstName(p) || (g.isListedFirstName?.(p) ?? false);
  return {
    firstName: (w) => capitalised(w) && parts(w).every((p) => g.isFirstName(p)),
    givenName: (w) => capitalised(w) && parts(w).every(given),
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

/** Marks the surname parts from index j on, particles between them included; true when there was one. */
function markSurnames(ws: Word[], j: number, mark: Set<number>, n: NameTests): boolean {
  let found = false;
  for (let k = j; k < ws.length && joined(ws[k]!); k++) {
    const t = ws[k]!.text;
    if (LINKING_PARTICLE.test(t) || IRISH_PARTICLE.test(t)) continue;
    if (!n.surnameLike(t) || (n.firstName(t) && n.everyday(t) && !n.isSurname(t))) break;
    for (let p = j; p <= k; p++) mark.add(p);
    found = true;
  }
  return found;
}

/** The given name before a surname found by its form, when it is no everyday word. */
function markGivenBefore(ws: Word[], i: number, mark: Set<number>, n: NameTests): void {
  const prev = ws[i - 1];
  if (prev && joined(ws[i]!) && capitalised(prev.text) && !RELATION.test(prev.text) && (n.givenName(prev.text) || !n.everyday(prev.text)))
    mark.add(i - 1);
}

function byGazetteer(ws: Word[], mark: Set<number>, n: NameTests): void {
  for (let i = 0; i < ws.length; i++) {
    const t = ws[i]!.text;
    const next = ws[i + 1];
    // A word already found as a name (after a title elsewhere in the text) counts as a known surname.
    const beforeName = !!next && joined(next) && (mark.has(i + 1) || n.knownSurname(next.text) || n.surnameForm(next.text));
    if (IRISH_PARTICLE.test(t) && next && joined(next) && capitalised(next.text) && !n.everyday(next.text)) {
      mark.add(i);
      markSurnames(ws, i + 1, mark, n);
      markGivenBefore(ws, i, mark, n);
    } else if (n.firstName(t)) {
      let j = i + 1;
      while (ws[j] && joined(ws[j]!) && LINKING_PARTICLE.test(ws[j]!.text)) j++;
      const surname = !!ws[j] && joined(ws[j]!) && markSurnames(ws, j, mark, n);
      if (surname || !n.everyday(t)) for (let p = i; p < j; p++) mark.add(p);
    } else if (n.givenName(t) && (mark.has(i + 1) || (!n.everyday(t) && (t.includes('-') || beforeName)))) {
      // A given name of the wider lists before a name found in the text ("Brad [Kowalczyk]"), or
      // no everyday word and joined to another ("Klaus-Dieter") or before a known surname.
      mark.add(i);
      if (next && joined(next)) markSurnames(ws, i + 1, mark, n);
    } else if (n.surnameForm(t) || (t.includes('-') && n.knownSurname(t))) {
      mark.add(i);
      markGivenBefore(ws, i, mark, n);
    } else if (capitalised(t) && !n.everyday(t) && !RELATION.test(t) && next && joined(next) && (beforeName || afterGiven(t, next.text))) {
      // A given name the lists lack ("Gareth", "Urs") before a surname they know.
      mark.add(i);
      markSurnames(ws, i + 1, mark, n);
    }
    if (RELATION.test(t)) markAfterRelation(ws, i, mark, n);
  }
}

// What stands before a relative's word: "your (new) neighbour", "Ihre Mitbewohnerin", "votre voisin".
const DETERMINER =
  /^(?:your|his|her|my|our|their|the|a|Ihre?[mnrs]?|seine?[mnrs]?|ihre?[mnrs]?|meine?[mnrs]?|unser(?:e[mnrs]?)?|deine?[mnrs]?|votre|vos|son|sa|ses|mon|ma|notre|leur)$/u;

/** The name after a relative's word: "your daughter Eilidh", "Ihr Kollege, Torsten Brinkmann". */
function markAfterRelation(ws: Word[], i: number, mark: Set<number>, n: NameTests): void {
  const led = [ws[i - 1], ws[i - 2]].some((w) => w && (DETERMINER.test(w.text) || RELATION.test(w.text)));
  const name = ws[i + 1];
  if (!led || !name || !/^,?[ \u00a0]$/.test(name.gap) || !capitalised(name.text)) return;
  const t = name.text;
  if (GREETING_OR_TITLE.test(t.replace(/\.$/, '')) || RELATION.test(t)) return;
  if (!(n.givenName(t) || n.surnameForm(t) || !n.everyday(t))) return;
  mark.add(i + 1);
  markSurnames(ws, i + 2, mark, n);
}

/** Every other place where a word found as a name, or named after a title, recurs in the text. */
function byRecurrence(ws: Word[], mark: Set<number>, n: NameTests, named: string[]): void {
  const names = new Set<string>();
  const add = (w: string) => {
    if (w.length < 3 || !capitalised(w) || LINKING_PARTICLE.test(w) || IRISH_PARTICLE.test(w) || GREETING_OR_TITLE.test(w)) return;
    if (!n.everyday(w) || n.isSurname(w) || n.givenName(w)) names.add(w);
  };
  const found = [...mark].map((i) => ws[i]!.text);
  for (const w of [...found, ...named.flatMap((s) => s.split(/\s+/))]) {
    add(w);
    if (w.includes('-')) w.split('-').forEach(add);
  }
  if (names.size) ws.forEach((w, i) => names.has(w.text) && mark.add(i));
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
    texts.some((t) => n.firstName(t) || (n.givenName(t) && !n.everyday(t))) ||
    (texts.some((t) => n.knownSurname(t) || n.surnameForm(t)) && texts.every((t) => !n.everyday(t)));
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

/**
 * The masker of names for one gazetteer. `named`: names the patterns found after a title or in a
 * greeting (already masked there), to be masked wherever else they stand.
 */
export function nameMasker(g: NameGazetteer): (text: string, named?: string[]) => string {
  const n = nameTests(g);
  return function maskNames(text: string, named: string[] = []): string {
    const ws = wordsOf(text);
    const mark = new Set<number>();
    byRecurrence(ws, mark, n, named);
    byGazetteer(ws, mark, n);
    bySignature(text, ws, mark, n);
    byRecurrence(ws, mark, n, []);
    return mark.size ? replaceMarked(text, ws, mark) : text;
  };
}
