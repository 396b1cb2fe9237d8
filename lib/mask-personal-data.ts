/**
 * Masks personal data in a text so that one of our replies to a customer can serve as reusable
 * knowledge in a draft for someone else. Pure and deterministic; errs on the side of masking:
 * a lost order number costs nothing, a leaked IBAN costs a customer's trust.
 *
 * The order matters: keyword-led numbers and IBANs go before the generic digit patterns
 * (card, phone) so each gets the placeholder that says what it was.
 */

const NAME = "[A-ZÄÖÜ][a-zäöüß'-]+(?:[ -][A-ZÄÖÜ][a-zäöüß'-]+)?";
// A reference token: letters, digits and separators, holding at least one digit.
const TOKEN = '(?=[A-Za-z0-9/#.-]*\\d)[A-Za-z0-9][A-Za-z0-9/.-]*[A-Za-z0-9]|\\d';

interface Rule {
  pattern: RegExp;
  replace: string | ((...m: string[]) => string);
}

/** Keeps the keyword (so the text still reads) and masks the number after it. */
function keyed(keywords: string, placeholder: string): Rule {
  return {
    pattern: new RegExp(`(\\b(?:${keywords})\\s*(?:[:#]\\s*|\\s)?\\s*#?\\s*)(${TOKEN})`, 'giu'),
    replace: (_m, lead) => `${lead}${placeholder}`,
  };
}

const RULES: Rule[] = [
  // Email addresses first: their local parts look like names and numbers.
  { pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, replace: '[email]' },
  // IBAN: country code, check digits, 11 to 30 more characters, often in groups of four.
  { pattern: /\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b/g, replace: '[IBAN]' },
  keyed(
    'Kundennummer|Kunden-?Nr\\.?|Kd\\.?-?Nr\\.?|customer\\s+(?:number|no\\.?|id|ID)|customer|client\\s+(?:number|no\\.?)',
    '[customer number]',
  ),
  keyed('Rechnungsnummer|Rechnungs-?Nr\\.?|Rechnung\\s+Nr\\.?|Rechnung|invoice\\s+(?:number|no\\.?)|invoice', '[invoice number]'),
  keyed(
    'Bestellnummer|Bestell-?Nr\\.?|Bestellung\\s+Nr\\.?|Bestellung|Auftragsnummer|Auftrags-?Nr\\.?|Auftrag|order\\s+(?:number|no\\.?|id|ID)|order',
    '[order number]',
  ),
  keyed(
    'Kontonummer|Konto-?Nr\\.?|Konto|account\\s+(?:number|no\\.?)|account|Vertragsnummer|Vertrags-?Nr\\.?|contract\\s+(?:number|no\\.?)|Sendungsnummer|tracking\\s+(?:number|no\\.?)|BIC|Steuernummer|USt-?IdNr\\.?|VAT\\s+(?:number|no\\.?|ID)',
    '[account number]',
  ),
  // Dates of birth: the date after the keyword, in German or English form.
  {
    pattern:
      /(\b(?:Geburtsdatum|geboren am|geb\.|date of birth|born on|DOB)\s*:?\s*)(?:der\s+|the\s+)?(?:\d{1,2}\.\s?(?:\d{1,2}\.|[A-ZÄÖÜ][a-zäöü]+)\s?\d{2,4}|\d{4}-\d{2}-\d{2}|\d{1,2}\/\d{1,2}\/\d{2,4}|\d{1,2}(?:st|nd|rd|th)?\s+[A-Z][a-z]+\s+\d{4}|[A-Z][a-z]+\s+\d{1,2},?\s+\d{4})/gu,
    replace: (_m, lead) => `${lead}[date of birth]`,
  },
  // Payment card numbers: 13 to 19 digits, in groups or not.
  { pattern: /\b\d{4}(?:[ -]?\d{4}){2}(?:[ -]?\d{1,7})\b/g, replace: '[card number]' },
  // Phone numbers: international (+49, 0049) or a leading 0 area code, at least 7 digits in all.
  {
    pattern: /(?:\+|\b00)\d{1,3}(?:[ ]?[/.-]?[ ]?\(?\d{1,6}\)?){1,6}|\b0\d{2,5}[ ]?[/-]?[ ]?\d{3,}(?:[ -]?\d{1,6})?\b/g,
    replace: '[phone]',
  },
  // Street and house number (German and English forms), and a German postcode with its town.
  {
    pattern: /\b[A-ZÄÖÜ][a-zäöüß-]{2,}(?:straße|strasse|str\.|weg|gasse|platz|allee|ring|damm|ufer|chaussee)\s+\d+\s?[a-z]?\b/gu,
    replace: '[address]',
  },
  {
    pattern: /\b\d{1,5}\s+[A-Z][a-z]+(?:\s[A-Z][a-z]+)?\s+(?:Street|St\.|Road|Rd\.|Avenue|Ave\.|Lane|Drive|Way|Boulevard|Close)/g,
    replace: '[address]',
  },
  { pattern: /\b(?:D-)?\d{5}\s+[A-ZÄÖÜ][a-zäöüß]+(?:[ -](?:am|an der|im|[A-ZÄÖÜ])[a-zäöüß.]*)*\b/gu, replace: '[postcode town]' },
  // Names after a title or in a greeting.
  {
    pattern: new RegExp(`\\b((?:Frau|Herrn?|Mr\\.?|Mrs\\.?|Ms\\.?|Miss|Dr\\.)\\s+(?:(?:Dr|Prof)\\.\\s+)?)(${NAME})`, 'gu'),
    replace: (_m, lead) => `${lead}[name]`,
  },
  {
    pattern: new RegExp(
      `\\b((?:Hallo|Liebe[rs]?|Guten Tag|Moin|Hi|Hello|Dear|Good (?:morning|afternoon|evening))\\s+)(?!\\[)(${NAME})(?=\\s*[,!\\n]|$)`,
      'gmu',
    ),
    replace: (_m, lead) => `${lead}[name]`,
  },
];

/** The text with names, addresses, numbers and other personal data replaced by placeholders. */
export function maskPersonalData(text: string): string {
  let out = text;
  for (const rule of RULES) {
    out = out.replace(rule.pattern, rule.replace as (substring: string, ...args: string[]) => string);
  }
  return out;
}
