/**
 * The name lists of the zxcvbn-ts language packages (German, English, French) as a gazetteer:
 * first names and surnames ranked by frequency from public statistics (the English surnames are
 * the US census list), and each language's most frequent words. The packages unpack their lists
 * when loaded (about 0.3 s with the wider lists below): they are loaded on the first call, not when
 * this module is imported, so a CLI command or a worker that never masks a reply does not pay for
 * them; the words are kept for the process in one compact sorted table (about 3 MB: see
 * compactWordFlags), and the packages' modules are dropped once read.
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

/** The lists a word can be on, as bits of one flag byte per word. */
const FIRST = 1;
const LISTED = 2;
const LAST = 4;
const COMMON = 8;

/**
 * The words of all lists, sorted, in one string (`\n` between them) with an offset and a flag
 * byte per word, searched by bisection. Four Sets of the same words held about 35 MB of heap in
 * every process that masks (each entry a string and a hash-table slot); this holds about 3 MB, and
 * a lookup is some 18 comparisons. The packages' modules are dropped once read, so their lists go too.
 */
export function compactWordFlags(lists: Array<{ flag: number; words: ReadonlyArray<Words | undefined> }>): (word: string) => number {
  const flags = new Map<string, number>();
  for (const { flag, words } of lists) {
    for (const list of words) {
      for (const w of list ?? []) {
        if (typeof w !== 'string' || w.length < 2) continue;
        const key = nameKey(w);
        flags.set(key, (flags.get(key) ?? 0) | flag);
      }
    }
  }
  // Code-unit order, as `<` compares strings.
  const sorted = [...flags.keys()].sort();
  const bits = Uint8Array.from(sorted, (k) => flags.get(k)!);
  const offsets = new Uint32Array(sorted.length + 1);
  sorted.forEach((k, i) => (offsets[i + 1] = offsets[i]! + k.length + 1));
  const text = `${sorted.join('\n')}\n`;
  flags.clear();
  return (word) => {
    const key = nameKey(word);
    let lo = 0;
    let hi = bits.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = text.slice(offsets[mid], offsets[mid + 1]! - 1);
      if (at === key) return bits[mid]!;
      if (at < key) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  };
}

/** Drops the list packages from the module cache, so that their arrays can be collected once read. */
function forgetModules(pattern: RegExp): void {
  const gone = new Set(Object.keys(require.cache).filter((k) => pattern.test(k)));
  for (const k of gone) delete require.cache[k];
  for (const m of Object.values(require.cache)) if (m) m.children = m.children.filter((c) => !gone.has(c.id));
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
  const flagsOf = compactWordFlags([
    { flag: FIRST, words: [de.firstnames, en['firstnames-en'], fr['lastnames-fr']] },
    { flag: LISTED, words: wider },
    // The French package's two lists are swapped: 'firstnames-fr' holds surnames (Abadie, Abbas …).
    { flag: LAST, words: [de.lastnames, en['lastnames-en'], fr['firstnames-fr']] },
    {
      flag: COMMON,
      words: [
        de.commonWords?.slice(0, COMMON_WORDS),
        en['commonWords-en']?.slice(0, COMMON_WORDS),
        fr['commonWords-fr']?.slice(0, COMMON_WORDS),
      ],
    },
  ]);
  // The review inbox's password rules load the same packages in their own process, not in this one.
  forgetModules(/[\\/]node_modules[\\/](?:@zxcvbn-ts[\\/]language-(?:de|en|fr)|gender-detection-from-name)[\\/]/);
  return {
    isFirstName: (w) => (flagsOf(w) & FIRST) !== 0,
    isListedFirstName: (w) => (flagsOf(w) & (LISTED | FIRST)) !== 0,
    isSurname: (w) => (flagsOf(w) & LAST) !== 0,
    isCommonWord: (w) => (flagsOf(w) & COMMON) !== 0,
  };
}

let loaded: NameGazetteer | undefined;

/** The gazetteer, built on the first call and kept for the process. */
export function zxcvbnNameGazetteer(): NameGazetteer {
  loaded ??= load();
  return loaded;
}
