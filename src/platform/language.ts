const GERMAN = new Set(
  'und der die das ist nicht ich sie wir ihr mit für auf bitte danke vielen grüße freundlichen sehr geehrte hallo können kann mein meine unser ihre eine einen dem den des noch schon wurde wird habe haben'.split(
    ' ',
  ),
);
const ENGLISH = new Set(
  'and the is not you we with for on please thanks thank regards dear hello can could my our your a an of to have has was were will would'.split(
    ' ',
  ),
);

/** A small stop-word vote between German and English, the two languages the product serves. */
export function detectLanguage(text: string): 'de' | 'en' {
  return languageVote(text) ?? 'en';
}

/** The mail's language, or `fallback` (the mailbox's) when the text holds no word of either. */
export function detectLanguageOr(text: string, fallback: 'de' | 'en'): 'de' | 'en' {
  return languageVote(text) ?? fallback;
}

function languageVote(text: string): 'de' | 'en' | null {
  let de = 0;
  let en = 0;
  for (const word of text
    .toLowerCase()
    .split(/[^a-zäöüß]+/)
    .slice(0, 400)) {
    if (GERMAN.has(word)) de += 1;
    if (ENGLISH.has(word)) en += 1;
  }
  if (/[äöüß]/i.test(text)) de += 1;
  if (de === 0 && en === 0) return null;
  return de > en ? 'de' : 'en';
}
