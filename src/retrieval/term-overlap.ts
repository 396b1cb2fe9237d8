/**
 * Term-overlap relevance for the offline drafter: which passages and sentences share the
 * customer's words. Deliberately simple (no model): stop words out, umlauts folded, and German
 * compounds matched by containment ("Kündigungsfrist" finds "Kündigung" and "Frist").
 */
/** German, then English function words and mail phrases that say nothing about the topic. */
const STOP_WORDS = new Set(
  [
    'aber alle allem als also am an auch auf aus bei bin bis bitte bzw da dafür damit dann das dass dem den denen der des dessen die dies diese diesem diesen dieser dieses doch dort du durch ein eine einem einen einer eines er es etwa etwas euch für gab gibt ging hab habe haben hallo hat hatte hätte heute hier ich ihm ihn ihnen ihr ihre ihrem ihren ihrer ihres im in ins ist ja jetzt kann kein keine können könnten machen mal man mehr mein meine meinem meinen meiner mich mir mit möchte muss nach nicht noch nun nur ob oder ohne sehr sei seit sich sie sind so soll sollte sowie über um und uns unser unsere unter viel viele vielen vom von vor war waren was weil wenn wer wie wieder will wir wird wo wurde würde zu zum zur zwei guten tag grüße gruß freundlichen freundliche vielen dank danke geehrte geehrter damen herren frage fragen kurze kurz gerne gern leider einfach bereits gestern morgen',
    'a about after again all also am an and any are as at be because been before being but by can could did do does dont for from get got had has have hello hi how i if in into is it its just me might more most much my need no not now of on once only or other our out please so some such than thank thanks that the their them then there these they this those to too up us very was we were what when where which while who why will with would yes yet you your yours regards best dear kind question questions quick hey team support',
  ]
    .join(' ')
    .split(' '),
);

const FOLDED: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss' };
const UMLAUT = /[äöüß]/g;

/** Lower case, umlauts and ß folded so "zurücksetzen" and "zuruecksetzen" meet. */
function fold(word: string): string {
  // Most words hold none: a search that finds nothing costs less than four replacements.
  UMLAUT.lastIndex = 0;
  return UMLAUT.test(word) ? word.replace(UMLAUT, (c) => FOLDED[c]!) : word;
}

const NON_WORD = /[^\p{L}\p{N}]+/u;
const DIGITS = /^\d+$/;

/**
 * The distinct content words of a text (at least three letters, no stop words, no pure numbers).
 * Retrieval runs it over every candidate passage of every draft (a few hundred each), so it
 * avoids work per word that most words do not need.
 */
export function terms(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text.toLowerCase().split(NON_WORD)) {
    if (raw.length < 3 || STOP_WORDS.has(raw)) continue;
    const c = raw.charCodeAt(0);
    if (c >= 48 && c <= 57 && DIGITS.test(raw)) continue;
    out.add(fold(raw));
  }
  return out;
}

/** Same word, an inflection (shared stem), or one part of a compound. */
export function termsMatch(a: string, b: string): boolean {
  if (a === b) return true;
  const shorter = a.length <= b.length ? a : b;
  const longer = shorter === a ? b : a;
  if (shorter.length < 5) return false;
  if (longer.includes(shorter)) return true;
  let common = 0;
  while (common < shorter.length && shorter[common] === longer[common]) common += 1;
  return common >= Math.max(5, shorter.length - 3);
}

/** The query terms found in a set of document terms. */
export function matchedTerms(query: ReadonlySet<string>, doc: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const q of query) {
    if (doc.has(q) || [...doc].some((d) => termsMatch(q, d))) found.push(q);
  }
  return found;
}

/**
 * Inverse document frequency of each query term over the given documents: a word every passage
 * shares ("Kunde", "account") counts less than the one that names the topic.
 */
export function inverseFrequencies(query: ReadonlySet<string>, docs: ReadonlyArray<ReadonlySet<string>>): Map<string, number> {
  const idf = new Map<string, number>();
  for (const q of query) {
    const df = docs.filter((d) => matchedTerms(new Set([q]), d).length > 0).length;
    idf.set(q, Math.log(1 + (docs.length + 1) / (df + 1)));
  }
  return idf;
}

/** The summed weight of the query terms a document shares. */
export function overlapScore(query: ReadonlySet<string>, doc: ReadonlySet<string>, idf: ReadonlyMap<string, number>): number {
  return matchedTerms(query, doc).reduce((sum, t) => sum + (idf.get(t) ?? 1), 0);
}
