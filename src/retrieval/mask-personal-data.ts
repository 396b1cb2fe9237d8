/**
 * Masks personal data in a text so that one of our replies to a customer can serve as reusable
 * knowledge in a draft for someone else. Pure and deterministic; errs on the side of masking:
 * a lost order number costs nothing, a leaked IBAN costs a customer's trust.
 *
 * The order matters: keyword-led numbers and IBANs go before the generic digit patterns
 * (card, phone) so each gets the placeholder that says what it was.
 */

import { ADDRESS_LINE_RULE, HOUSE_NAME_RULE, NUMBER_AND_DATE_RULES, STREET_RULES, type Rule } from './address-date-patterns';
import type { KnownPersonalData } from './known-personal-data';
import { nameMasker } from './mask-names';
import type { NameGazetteer } from './name-gazetteer.port';
import { zxcvbnNameGazetteer } from './name-gazetteer.zxcvbn';

// A name after a title: one or two parts, double-barrelled, with particles ("Le Goff", "Nic Giolla
// Phádraig", "von Hohenberg") and O'/Mc forms ("O’Sullivan", "MacLeod").
const NAME_PART = "(?:O[’']|Mc|Mac|Fitz)?\\p{Lu}[\\p{Ll}’'-]*\\p{Ll}(?:-\\p{Lu}[\\p{Ll}’'-]+)*";
const PARTICLE = '(?:Nic|Ní|Mac|Mhic|Ó|Uí|[Vv]an|[Vv]on|[Dd]e|[Dd]u|[Ll]e|[Ll]a|der|den|zu|ter)';
const NAME = `(?:${PARTICLE}\\s+){0,2}${NAME_PART}(?:[ -](?:${PARTICLE}\\s+){0,2}${NAME_PART})?`;
// A reference token: letters, digits and separators, holding at least one digit.
const TOKEN = '(?=[A-Za-z0-9/#.-]*\\d)[A-Za-z0-9][A-Za-z0-9/.-]*[A-Za-z0-9]|\\d';

/** Keeps the keyword (so the text still reads) and masks the number after it. */
function keyed(keywords: string, placeholder: string): Rule {
  return {
    // "Kundennummer 123", "Kundennummer: 123", "Die neue Kundennummer lautet 123".
    pattern: new RegExp(`(\\b(?:${keywords})\\s*(?:[:#]\\s*|\\s)?\\s*(?:(?:lautet|ist|is|are|est)\\s+)?#?\\s*)(${TOKEN})`, 'giu'),
    replace: (_m, lead) => `${lead}${placeholder}`,
  };
}

// Email addresses first, before what is known too: their local parts look like names and numbers,
// and a known surname masked inside "markus.strauss@…" would leave the rest of the address.
const EMAIL: Rule = { pattern: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, replace: '[email]' };

// A name after a title, and in a greeting (not a closing: "Liebe Grüße").
const TITLED = new RegExp(
  `\\b((?:Frau|Herrn?|Fr\\.|Hr\\.|Mr\\.?|Mrs\\.?|Ms\\.?|Mx\\.?|Miss|Dr\\.|Prof\\.|Sir|Dame|Madame|Monsieur|Mme\\.?|Mlle\\.?|M\\.|Señora|Señor|Sra\\.|Sr\\.|Doña|Don)\\s+(?:(?:Dr|Prof|Mag|DI|Dipl\\.-Ing|Ing)\\.\\s+)?)(${NAME})`,
  'gu',
);
const GREETED = new RegExp(
  `\\b((?:Hallo|Liebe[rs]?|Guten (?:Tag|Morgen|Abend)|Moin|Servus|Grüezi|Grüß Gott|Hi|Hey|Hello|Dear|Good (?:morning|afternoon|evening)|Bonjour|Bonsoir|Salut|Cher|Chère|Hola|Buenos días|Buenas tardes|Estimad[oa]|Querid[oa])\\s+)(?!\\[|Gr[üu](?:ß|ss)e\\b)(${NAME})(?=\\s*[,!\\n]|$)`,
  'gmu',
);

/**
 * The names after titles and in greetings: masked there by the rules, and wherever else they
 * recur. Greetings are read once the titles are masked, as the rules do ("Hallo Frau [name]").
 */
function titledNames(text: string): string[] {
  const titled = [...text.matchAll(TITLED)].map((m) => m[2]!);
  const greeted = [...text.replace(TITLED, '$1[name]').matchAll(GREETED)].map((m) => m[2]!);
  return [...titled, ...greeted];
}

const RULES: Rule[] = [
  // National numbers and old dates before the digit patterns would split them.
  ...NUMBER_AND_DATE_RULES,
  // IBAN: country code, check digits, 11 to 30 more characters, often in groups of four.
  { pattern: /\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b/g, replace: '[IBAN]' },
  keyed(
    'Kundennummer|Kunden-?Nr\\.?|Kd\\.?-?Nr\\.?|customer\\s+(?:number|no\\.?|id|ID)|customer|client\\s+(?:number|no\\.?)|num[ée]ro\\s+(?:de\\s+)?client|n°\\s*client|n[úu]mero\\s+de\\s+cliente|n[º°]\\s*(?:de\\s+)?cliente|r[ée]f[ée]rence\\s+client',
    '[customer number]',
  ),
  keyed(
    'Rechnungsnummer|Rechnungs-?Nr\\.?|Rechnung\\s+Nr\\.?|Rechnung|invoice\\s+(?:number|no\\.?)|invoice|facture|factura',
    '[invoice number]',
  ),
  keyed(
    'Bestellnummer|Bestell-?Nr\\.?|Bestellung\\s+Nr\\.?|Bestellung|Auftragsnummer|Auftrags-?Nr\\.?|Auftrag|order\\s+(?:number|no\\.?|id|ID)|order|num[ée]ro\\s+de\\s+commande|commande|n[úu]mero\\s+de\\s+pedido|pedido',
    '[order number]',
  ),
  keyed(
    'Kontonummer|Konto-?Nr\\.?|Konto|account\\s+(?:number|no\\.?)|account|Vertragsnummer|Vertrags-?Nr\\.?|contract\\s+(?:number|no\\.?)|sort\\s+code|Sendungsnummer|tracking\\s+(?:number|no\\.?)|BIC|Steuernummer|USt-?IdNr\\.?|VAT\\s+(?:number|no\\.?|ID)',
    '[account number]',
  ),
  // Dates of birth: the date after the keyword, in German or English form.
  {
    pattern:
      /(\b(?:Geburtsdatum|geboren am|geb\.|date of birth|born on|DOB)\s*(?::\s*)?)(?:der\s+|the\s+)?(?:\d{1,2}\.\s?(?:\d{1,2}\.|[A-ZÄÖÜ][a-zäöü]+)\s?\d{2,4}|\d{4}-\d{2}-\d{2}|\d{1,2}\/\d{1,2}\/\d{2,4}|\d{1,2}(?:st|nd|rd|th)?\s+[A-Z][a-z]+\s+\d{4}|[A-Z][a-z]+\s+\d{1,2},?\s+\d{4})/gu,
    replace: (_m, lead) => `${lead}[date of birth]`,
  },
  // A card named by its last four digits: "ending 4821", "endet auf 4821", "**** 4821".
  {
    pattern:
      /(\b(?:ending(?:\s+(?:in|with))?|endet\s+auf|endend\s+auf|Endziffern|letzten\s+(?:vier|4)\s+Ziffern|last\s+(?:four|4)(?:\s+digits)?(?:\s+(?:are|is))?|(?:se\s+)?terminant\s+par|finissant\s+par|terminada\s+en|que\s+termina\s+en|acabada\s+en)\s*(?::\s*)?)\d{4}\b/giu,
    replace: (_m, lead) => `${lead}[card digits]`,
  },
  { pattern: /(?<![*•xX])[*•xX]{2,}(?:[ -][*•xX]{2,}){0,2}[ -]?\d{4}\b/g, replace: '[card digits]' },
  // Payment card numbers: 13 to 19 digits, in groups or not.
  { pattern: /\b\d{4}(?:[ -]?\d{4}){2}(?:[ -]?\d{1,7})\b/g, replace: '[card number]' },
  // Customer numbers like KD-20931, then any other letter-dash-number reference.
  { pattern: /\bKD-?\d{3,}\b/g, replace: '[customer number]' },
  { pattern: /\b[A-Z]{1,4}-\d{3,}(?:[-/]\d+)*\b/g, replace: '[reference]' },
  // A five-digit postcode with its town (DE, FR, ES), before the phone patterns take "04109".
  {
    pattern: /\b(?:D-|F-|E-)?\d{5}\s+\p{Lu}[\p{Ll}]+(?:[ -](?:am|an der|im|sur|de|\p{Lu})[\p{Ll}.]*)*\b/gu,
    replace: '[postcode town]',
  },
  // Phone numbers: international (+49, 0049), a leading 0 area code with the rest in groups
  // ("0521 / 96 44 18-0", "044 715 32 10"), US "(312) 555-0147", French pairs, Spanish mobiles.
  {
    pattern: /(?:\+|\b00)\d{1,3}(?:[ ]?[/.-]?[ ]?\(?\d{1,6}\)?){1,6}|\b0\d{2,5}[ ]?[/-]?[ ]?\d{2,}(?:[ -]\d{1,6}){0,4}\b/g,
    replace: '[phone]',
  },
  { pattern: /\b0[1-9](?:[ .-]?\d{2}){4}\b/g, replace: '[phone]' },
  { pattern: /(?:\(\d{3}\)\s?|\b\d{3}[ .-])\d{3}[ .-]\d{4}\b/g, replace: '[phone]' },
  { pattern: /\b[6789]\d{2}(?:[ .]\d{3}){2}\b/g, replace: '[phone]' },
  ...STREET_RULES,
  // Street and house number (German and English forms), and a German postcode with its town.
  {
    pattern: /\b[A-ZÄÖÜ][a-zäöüß-]{2,}(?:straße|strasse|str\.|weg|gasse|platz|allee|ring|damm|ufer|chaussee)\s+\d+\s?[a-z]?\b/gu,
    replace: '[address]',
  },
  { pattern: /\bFlat\s+\d+[A-Za-z]?,?/g, replace: '[address]' },
  {
    pattern:
      /\b\d{1,5}[A-Za-z]?,?\s+(?:[A-Z][a-z']+\s+){1,3}(?:Street|St\.|Road|Rd\.|Avenue|Ave\.|Lane|Drive|Way|Boulevard|Close|Crescent|Gardens|Terrace|Place|Square|Court|Grove|Mews|Row|Hill|Park|Walk)\b/g,
    replace: '[address]',
  },
  // French and Spanish streets: "12 rue de la Paix", "Calle Mayor 5".
  {
    pattern:
      /\b\d{1,4}(?:\s?(?:bis|ter))?,?\s+(?:rue|avenue|boulevard|bd|place|chemin|allée|impasse|quai|route)\s+(?:(?:de|du|des|la|le)\s+|l'|d')*\p{L}[\p{L}'-]*(?:\s\p{Lu}[\p{L}'-]*)*/giu,
    replace: '[address]',
  },
  {
    pattern:
      /\b(?:Calle|C\/|Avenida|Avda\.|Plaza|Paseo|Camino|Carrer)\s+(?:(?:de|del|la|los|las)\s+)*\p{Lu}[\p{L}'-]+(?:\s\p{Lu}[\p{L}'-]+)*,?\s*(?:n[º°o]\.?\s*)?\d{1,4}/gu,
    replace: '[address]',
  },
  ADDRESS_LINE_RULE,
  // UK postcodes: "LS6 2AB", "SW1A 1AA".
  { pattern: /\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}\b/g, replace: '[postcode]' },
  HOUSE_NAME_RULE,
  // Names after a title or in a greeting.
  { pattern: TITLED, replace: (_m, lead) => `${lead}[name]` },
  { pattern: GREETED, replace: (_m, lead) => `${lead}[name]` },
];

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A value as a whole-word pattern, letters compared without case. */
function word(value: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])${escape(value)}(?![\\p{L}\\p{N}])`, 'giu');
}

/** Digits of a number with any spacing or separators between them (phones written differently). */
function digits(value: string): RegExp | null {
  const d = value.replace(/\D/g, '');
  if (d.length < 6 || /[A-Za-z]/.test(value)) return null;
  return new RegExp(`(?<!\\d)${d.split('').join('[\\s./()-]*')}(?!\\d)`, 'g');
}

/** Known values, longest first, so "Sarah Thompson" goes before "Sarah". */
function knownRules(known: KnownPersonalData): Rule[] {
  const rules: Array<{ value: string; rule: Rule }> = [];
  const push = (value: string, placeholder: string, min: number) => {
    const v = value.trim();
    if (v.length < min) return;
    rules.push({ value: v, rule: { pattern: word(v), replace: placeholder } });
  };
  for (const e of known.emails) push(e, '[email]', 3);
  for (const n of known.numbers) {
    const d = digits(n);
    if (d) rules.push({ value: n, rule: { pattern: d, replace: '[number]' } });
    else push(n, '[number]', 3);
  }
  for (const l of known.lines) {
    push(l, '[address]', 5);
    for (const part of l.split(/(?:(?<!\s)\s+)?[,;|·]\s*/)) {
      push(part, '[address]', 5);
      // The street without its house number, as a reply may name it ("to Kingsley Road").
      push(part.replace(/^\d+[A-Za-z]?\s+/, ''), '[address]', 8);
    }
  }
  for (const n of known.names) {
    push(n, '[name]', 2);
    for (const part of n.split(/[\s,]+/)) if (/^\p{L}[\p{L}'-]{2,}$/u.test(part)) push(part, '[name]', 3);
  }
  return rules.sort((a, b) => b.value.length - a.value.length).map((r) => r.rule);
}

function apply(text: string, rules: Rule[]): string {
  let out = text;
  for (const rule of rules) {
    out = out.replace(rule.pattern, rule.replace as (substring: string, ...args: string[]) => string);
  }
  return out;
}

/**
 * The text with names, addresses, numbers and other personal data replaced by placeholders.
 * `known`: what the store holds about the person the text was written to (their names, addresses,
 * numbers, signature lines); masked first, because it knows names the patterns cannot. `names`:
 * the gazetteer for names no title announces (mask-names.ts), last, once the patterns are done.
 */
export function maskPersonalData(text: string, known?: KnownPersonalData, names: NameGazetteer = zxcvbnNameGazetteer()): string {
  const emailsMasked = apply(text, [EMAIL]);
  const knownMasked = known ? apply(emailsMasked, knownRules(known)) : emailsMasked;
  return maskerFor(names)(apply(knownMasked, RULES), titledNames(knownMasked));
}

const maskers = new WeakMap<NameGazetteer, (text: string, named?: string[]) => string>();

function maskerFor(names: NameGazetteer): (text: string, named?: string[]) => string {
  let m = maskers.get(names);
  if (!m) maskers.set(names, (m = nameMasker(names)));
  return m;
}
