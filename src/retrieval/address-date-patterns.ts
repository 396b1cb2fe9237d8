/**
 * Addresses, dates of birth and national numbers as written in Germany, Austria, Switzerland, the
 * UK, the US, Ireland and France, for mask-personal-data. Each pattern names the form it is for;
 * what they share: a street needs its house number or a street word, a postcode needs the town,
 * state or format that makes it one, so an amount or a year stays as it is.
 */

export interface Rule {
  pattern: RegExp;
  replace: string | ((...m: string[]) => string);
}

const MONTHS =
  'Januar|Jänner|Februar|Feber|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember|' +
  'January|February|March|May|June|July|October|December|Jan\\.?|Feb\\.?|Mar\\.?|Apr\\.?|Jun\\.?|Jul\\.?|Aug\\.?|Sept?\\.?|Oct\\.?|Okt\\.?|Nov\\.?|Dec\\.?|Dez\\.?|' +
  'janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre';
// A year of birth: dates before 2011 in a support reply are birthdays, not deliveries or invoices.
const OLD_YEAR = '(?:19\\d{2}|200\\d|2010)';
// A house number with its letter and stair or door ("3a", "88/2/14"), never across a line break.
const HOUSE = '\\d{1,5}(?: ?[a-zA-Z](?![\\p{L}]))?(?: ?[/-] ?\\d{1,4}[a-zA-Z]?)*';
const US_STATES =
  'AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY';
const DIRECTION = '(?:North|South|East|West|Northeast|Northwest|Southeast|Southwest|N|S|E|W|NE|NW|SE|SW)\\.?';
const STREET_TYPE =
  'Street|St\\.?|Road|Rd\\.?|Avenue|Ave\\.?|Av\\.?|Lane|Ln\\.?|Drive|Dr\\.?|Way|Boulevard|Blvd\\.?|Close|Crescent|Cres\\.?|Gardens|Terrace|Ter\\.?|' +
  'Place|Pl\\.?|Square|Sq\\.?|Court|Ct\\.?|Grove|Mews|Row|Hill|Park|Walk|Wynd|Brae|Rise|Vale|View|Parade|Quay|Wharf|Green|Gate|Chase|Croft|' +
  'Circle|Cir\\.?|Parkway|Pkwy\\.?|Highway|Hwy\\.?|Trail|Loop|Pike|Alley|Plaza|Heights';

/**
 * Post-office boxes, national numbers and dates of birth: before the digit patterns (card, phone)
 * would split them.
 */
export const NUMBER_AND_DATE_RULES: Rule[] = [
  // A post-office box is an address: "PO Box 4471", "P.O. Box 12", "Postfach 10 12 34", "BP 4512".
  {
    pattern:
      /\b(?:P\.?\s?O\.?\s?Box|Post\s+Office\s+Box|Postfach|Postf\.|Case\s+postale|Casella\s+postale|Bo[iî]te\s+postale|BP)\s*\d{1,6}(?: \d{2,3})*\b/gu,
    replace: '[address]',
  },
  // National numbers: Swiss AHV (756.xxxx.xxxx.xx), UK National Insurance (any two letters: the
  // "QQ 12 34 56 C" of forms and examples is written too), Irish PPS, French NIR.
  { pattern: /\b756[.\s]?\d{4}[.\s]?\d{4}[.\s]?\d{2}\b/g, replace: '[national number]' },
  { pattern: /\b[A-Z]{2}\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D]\b/g, replace: '[national number]' },
  { pattern: /\b\d{7}[A-W][A-IW]?\b/g, replace: '[national number]' },
  { pattern: /\b[12]\s?\d{2}\s?(?:0[1-9]|1[0-2])\s?(?:\d{2}|2[AB])\s?\d{3}\s?\d{3}(?:\s?\d{2})?\b/g, replace: '[national number]' },
  { pattern: /\b\d{3}-\d{2}-\d{4}\b/g, replace: '[national number]' }, // US Social Security number
  // Full dates with an old year, in every order people write: 14.03.1968, 2. Februar 1985,
  // 29 July 1991, 5th March 1962, April 3, 1974, 07/29/1991, 1979-11-02, le 3 mars 1947.
  {
    pattern: new RegExp(
      `\\b(?:\\d{1,2}[./-]\\d{1,2}[./-]${OLD_YEAR}|${OLD_YEAR}-\\d{2}-\\d{2}|\\d{1,2}(?:\\.|st|nd|rd|th|er)?\\s+(?:${MONTHS})\\s+${OLD_YEAR}|(?:${MONTHS})\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+${OLD_YEAR})(?!\\d)`,
      'giu',
    ),
    replace: '[date of birth]',
  },
];

/** Streets, ZIP codes, Eircodes, Austrian and Swiss postcodes. */
export const STREET_RULES: Rule[] = [
  // German, Austrian and Swiss streets: "Mariahilfer Straße 88/2/14", "Friedrich-Ebert-Straße 112",
  // "Am Lindenhof 3a"; French street first, number after: "Chemin des Vignes 4".
  {
    pattern: new RegExp(
      `\\b(?:\\p{Lu}[\\p{Ll}ß]+-)+(?:Straße|Strasse|Str\\.|Weg|Gasse|Platz|Allee|Ring|Damm)(?:\\s+${HOUSE})?|\\b\\p{Lu}[\\p{Ll}ß]+er\\s+(?:Straße|Strasse|Str\\.|Gasse|Weg|Platz|Allee|Ring|Damm|Ufer|Gürtel|Lände|Zeile|Steig)(?:\\s+${HOUSE})?`,
      'gu',
    ),
    replace: '[address]',
  },
  {
    pattern: new RegExp(
      `\\b(?:Am|An der|An den|Im|In der|In den|Auf der|Auf dem|Zum|Zur|Unter den|Hinter der|Vor dem|Beim)\\s+\\p{Lu}[\\p{L}-]+\\s+${HOUSE}\\b`,
      'gu',
    ),
    replace: '[address]',
  },
  {
    pattern:
      /\b(?:Chemin|Rue|Route|Avenue|Boulevard|Place|Quai|Allée|Impasse|Rte|Ch\.|Av\.)\s+(?:(?:de|du|des|la|le)\s+|l'|d')*\p{Lu}[\p{L}'-]*(?:\s\p{Lu}[\p{L}'-]*)*\s+\d{1,4}\b/gu,
    replace: '[address]',
  },
  // Welsh and Irish street words before the name: "17 Heol y Nant", "3 Bóthar na Trá".
  {
    pattern: /\b\d{1,5}\s+(?:Heol|Ffordd|Stryd|Lôn|Bóthar|Bothar|Sráid|Sraid|Ascaill|Lána|Cnoc|Páirc)\s+[^,\n]{1,40}(?=,)/gu,
    replace: '[address]',
  },
  // US and UK streets: "1420 N. Halsted St., Apt 5B", "742 SW Evergreen Terrace", "4 Kirk Wynd",
  // numbered roads ("445 Highway 44 East", "2300 Route 309") and grid addresses ("4140 West 5415 South").
  {
    pattern: new RegExp(
      `\\b\\d{1,6}[A-Za-z]?,?\\s+(?:${DIRECTION}\\s+)?(?:(?:\\p{Lu}[\\p{L}'’-]*|\\d+(?:st|nd|rd|th))\\s+){1,3}(?:${STREET_TYPE})(?![\\p{L}])(?:\\s+${DIRECTION}(?![\\p{L}]))?(?:,?\\s+(?:Apt|Apartment|Suite|Ste|Unit|Flat|#)\\.?\\s*[\\w-]+)?`,
      'gu',
    ),
    replace: '[address]',
  },
  {
    pattern: new RegExp(
      `\\b\\d{1,6}\\s+(?:(?:US|State|County)\\s+)?(?:Highway|Hwy|Route|Rte|Road)\\s+\\d+(?:\\s+${DIRECTION}(?![\\p{L}]))?`,
      'gu',
    ),
    replace: '[address]',
  },
  { pattern: new RegExp(`\\b\\d{1,6}\\s+${DIRECTION}\\s+\\d{1,5}(?:\\s+${DIRECTION}(?![\\p{L}]))?`, 'g'), replace: '[address]' },
  // A flat or apartment and the building named after it: "Apartment 7, Harbour Court".
  {
    pattern: /\b(?:Apartment|Apt\.?|Flat|Unit)\s+\d+[A-Za-z]?,\s+(?:\p{Lu}[\p{L}'’-]+\s?){1,3}/gu,
    replace: '[address] ',
  },
  // US ZIP and ZIP+4 after the state: "Chicago, IL 60642", "Springfield, MA 01103-2214".
  { pattern: new RegExp(`\\b(${US_STATES})\\s+\\d{5}(?:-\\d{4})?\\b`, 'g'), replace: (_m, state) => `${state} [ZIP]` },
  // Irish Eircodes: "D09 X2F6", "H91 E2K3" (routing key, then four characters with a letter). The
  // four take any letter: people write made-up or misremembered ones ("T12 AB34").
  { pattern: /\b(?:[AC-FHKNPRTV-Y]\d{2}|D6W)\s?(?=[0-9A-Z]{4}\b)(?=\S*[A-Z])[0-9A-Z]{4}\b/g, replace: '[postcode]' },
  // Austrian and Swiss postcodes (four digits, no year) before the town, after a comma or a line start.
  {
    pattern: /(^|,\s*|\n[^\S\n]*(?:>\s*)?)(?:A-|CH-)?(?!19\d\d|20\d\d)[1-9]\d{3}\s+(?=\p{Lu}\p{Ll})/gmu,
    replace: (_m, lead) => `${lead}[postcode] `,
  },
];

// Words that end the name of a house in the UK and Ireland ("Rose Cottage", "Glebe House").
const HOUSE_WORD =
  'Cottage|House|Lodge|Farm(?:house)?|Forge|Mill|Barn|Villa|Manor|Hall|Grange|Rectory|Vicarage|Croft|Bungalow|Schoolhouse|Steading|Stables|Orchard';

/**
 * A house name, where a house has a name and no number ("The Old Forge, Ballyvaughan, Co. Clare
 * H91 E2K3"): "The" and capitalised words, or capitalised words before a house word, followed by a
 * comma and, on the same line, a postcode or street already masked. Runs after the postcodes.
 */
export const HOUSE_NAME_RULE: Rule = {
  pattern: new RegExp(
    `\\b(?:The(?:\\s+\\p{Lu}[\\p{L}’'-]+){1,3}|(?:\\p{Lu}[\\p{L}’'-]+\\s+){1,2}(?:${HOUSE_WORD}))(?=,[^\\n]*\\[(?:address|postcode|ZIP))`,
    'gu',
  ),
  replace: '[address]',
};

/**
 * Any street with its house number on the line of a postcode and town, whatever its words
 * ("Neue Heimat 14/7, 4020 Linz"); not an amount ("Seite 3, 1000 Euro"). Runs after the streets
 * with a street word, so the nouns before those ("die Lieferadresse Bahnhofstrasse 21") stay.
 */
export const ADDRESS_LINE_RULE: Rule = {
  pattern:
    /(?<![\p{L}.’'-])[\p{Ll}\p{Lt}\p{Lm}\p{Lo}.’'-]*\p{Lu}[\p{L}.’'-]*\s+(?:\p{Lu}[\p{L}.’'-]*\s+)?\d{1,4}\s?[a-z]?(?:\/\d{1,4})*,\s*(?=(?:[A-Z]{1,2}-)?\d{4,5}\s+(?!Euro|EUR|CHF|Franken|Dollar|Stück)\p{Lu}\p{Ll}|\[postcode)/gu,
  replace: '[address], ',
};
