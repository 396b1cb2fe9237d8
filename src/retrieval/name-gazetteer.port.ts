/**
 * What masking asks of a list of names: is this word a given name, a surname, or a word of
 * everyday language that happens to be spelt like one ("Rose", "Will", "Bauer")? Words are
 * compared without case or accents, so "Siobhán" finds "siobhan".
 */
export interface NameGazetteer {
  /** A given name of the frequency lists: trusted on its own when it is no everyday word. */
  isFirstName(word: string): boolean;
  /**
   * A given name of the wider lists (older, regional and foreign names: "Klaus", "Eilidh",
   * "Pádraig"). Such long lists hold rarer words too ("Lander"), so it is trusted only where the
   * context says a name stands: before a surname, under a closing, after "your daughter".
   */
  isListedFirstName?(word: string): boolean;
  isSurname(word: string): boolean;
  /** A frequent word of German, English or French (lists of spoken words hold names too). */
  isCommonWord(word: string): boolean;
}

/** The key a word is looked up by: lower case, accents and apostrophes dropped. */
export function nameKey(word: string): string {
  return word
    .normalize('NFD')
    .replace(/[\u0300-\u036f’']/g, '')
    .toLowerCase();
}

/** A gazetteer that knows no name: masking by patterns and known data only. */
export const NO_NAMES: NameGazetteer = { isFirstName: () => false, isSurname: () => false, isCommonWord: () => false };
