/**
 * The name lists of the zxcvbn-ts language packages (German, English, French) as a gazetteer:
 * first names and surnames ranked by frequency from public statistics (the English surnames are
 * the US census list), and each language's most frequent words. The packages unpack their lists
 * when loaded (about 0.3 s with the wider lists below): they are loaded on the first call, not when
 * this module is imported, so a CLI command or a worker that never masks a reply does not pay for
 * them; the sets are kept for the process (about 37 MB of heap with the packages' own lists).
 * Never imported by workflow code.
 *
 * The German list holds recent children's names (no Klaus, Jürgen or Dieter), the English one US
 * names (no Eilidh or Pádraig): the wider first-name lists of `gender-detection-from-name` (MIT;
 * German, English, French, Italian, Spanish and Turkish given names of every age, about 64,000)
 * fill that gap as listed first names, which masking trusts only in a name's context.
 */
import type * as LanguageDe from '@zxcvbn-ts/language-de';
import type * as LanguageEn from '@zxcvbn-ts/language-en';
import type * as LanguageFr from '@zxcvbn-ts/language-fr';
import { nameKey, type NameGazetteer } from './name-gazetteer.port';

type Words = ReadonlyArray<string | number>;

/**
 * `gender-detection-from-name`'s lists (de, en, fr, it, es, tr), each a module exporting a Map
 * name → gender. Literal names, so that the production-imports check and any bundler see them.
 */
function widerFirstNames(): Array<Map<string, string>> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return [
    require('gender-detection-from-name/names/de') as Map<string, string>,
    require('gender-detection-from-name/names/en') as Map<string, string>,
    require('gender-detection-from-name/names/fr') as Map<string, string>,
    require('gender-detection-from-name/names/it') as Map<string, string>,
    require('gender-detection-from-name/names/es') as Map<string, string>,
    require('gender-detection-from-name/names/tr') as Map<string, string>,
  ];
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/** How many of each language's most frequent words count as everyday words. */
const COMMON_WORDS = 5000;

function keys(...lists: Array<Words | undefined>): Set<string> {
  const set = new Set<string>();
  for (const list of lists) for (const w of list ?? []) if (typeof w === 'string' && w.length >= 2) set.add(nameKey(w));
  return set;
}

function load(): NameGazetteer {
  // Loaded here rather than imported at the top: masking must stay synchronous, and the lists cost
  // their unpacking only in a process that masks.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { dictionary: de } = require('@zxcvbn-ts/language-de') as typeof LanguageDe;
  const { dictionary: en } = require('@zxcvbn-ts/language-en') as typeof LanguageEn;
  const { dictionary: fr } = require('@zxcvbn-ts/language-fr') as typeof LanguageFr;
  const wider = widerFirstNames().map((names) => [...names.keys()]);
  /* eslint-enable @typescript-eslint/no-require-imports */
  const first = keys(de.firstnames, en['firstnames-en'], fr['lastnames-fr']);
  const listed = keys(...wider);
  // The French package's two lists are swapped: 'firstnames-fr' holds surnames (Abadie, Abbas …).
  const last = keys(de.lastnames, en['lastnames-en'], fr['firstnames-fr']);
  const common = keys(
    de.commonWords?.slice(0, COMMON_WORDS),
    en['commonWords-en']?.slice(0, COMMON_WORDS),
    fr['commonWords-fr']?.slice(0, COMMON_WORDS),
  );
  return {
    isFirstName: (w) => first.has(nameKey(w)),
    isListedFirstName: (w) => listed.has(nameKey(w)) || first.has(nameKey(w)),
    isSurname: (w) => last.has(nameKey(w)),
    isCommonWord: (w) => common.has(nameKey(w)),
  };
}

let loaded: NameGazetteer | undefined;

/** The gazetteer, built on the first call and kept for the process. */
export function zxcvbnNameGazetteer(): NameGazetteer {
  loaded ??= load();
  return loaded;
}
