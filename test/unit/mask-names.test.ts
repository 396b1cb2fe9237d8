import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskPersonalData } from '../../src/retrieval/mask-personal-data';
import { NO_NAMES, nameKey, type NameGazetteer } from '../../src/retrieval/name-gazetteer.port';
import { nameMasker } from '../../src/retrieval/mask-names';

/** A gazetteer of a few words, so the rules can be read off the test. */
const SMALL: NameGazetteer = {
  isFirstName: (w) => ['anna', 'will', 'sabine', 'klaus', 'dieter'].includes(w.toLowerCase()),
  isSurname: (w) =>
    ['bauer', 'kramer', 'jones'].includes(
      w
        .normalize('NFD')
        .replace(/[\u0300-\u036f]/g, '')
        .toLowerCase(),
    ),
  isCommonWord: (w) => ['will', 'bauer', 'rose', 'garten', 'die', 'rechnung', 'team'].includes(w.toLowerCase()),
};

test('a known first name with the capitalised word after it, and a first name on its own unless it is an everyday word', () => {
  const mask = nameMasker(SMALL);
  assert.equal(mask('Ihre Nachbarin Anna Bauer hat angerufen.'), 'Ihre Nachbarin [name] hat angerufen.');
  assert.equal(mask('Rückfragen gern an uns, Sabine.'), 'Rückfragen gern an uns, [name].');
  assert.equal(mask('Will you send it? Die Rose Garten bleibt.'), 'Will you send it? Die Rose Garten bleibt.');
  assert.equal(mask('Klaus-Dieter Krämer rief an.'), '[name] rief an.');
});

test('surnames by their form: O’ and Mc, Irish particles, with the given name before them', () => {
  const mask = nameMasker(NO_NAMES);
  assert.equal(mask('matched to your surname O’Sullivan.'), 'matched to your surname [name].');
  assert.equal(mask('Your partner Gráinne Ní Bhriain keeps her account.'), 'Your partner [name] keeps her account.');
  assert.equal(mask('Aoife Nic Giolla Phádraig wrote.'), '[name] wrote.');
  assert.equal(mask('Thanks, DeShawn, and goodbye.'), 'Thanks, [name], and goodbye.');
});

test('the line under a closing is a name only when it holds one', () => {
  const mask = nameMasker(SMALL);
  assert.equal(mask('Viele Grüße\nSabine Jones'), 'Viele Grüße\n[name]');
  assert.equal(mask('> Kind regards,\n> Anna'), '> Kind regards,\n> [name]');
  assert.equal(mask('Best regards\nThe support team'), 'Best regards\nThe support team');
});

test('with the shipped gazetteer: names no title announces', () => {
  assert.equal(
    maskPersonalData('Ihr Kollege Torsten Brinkmann hat die Rechnung weitergeleitet.'),
    'Ihr Kollege [name] hat die Rechnung weitergeleitet.',
  );
  assert.equal(maskPersonalData('Dear Ms Nic Giolla Phádraig,'), 'Dear Ms [name],');
  assert.equal(maskPersonalData('Sehr geehrter Herr Dr. Müller-Lüdenscheidt,'), 'Sehr geehrter Herr Dr. [name],');
});

test('streets in either order, postcodes of seven countries', () => {
  const cases: Array<[string, RegExp]> = [
    ['Lieferung an Hauptstraße 5, 80331 München', /Hauptstraße|80331/],
    ['Die Mariahilfer Straße 88/2/14, 1070 Wien', /Mariahilfer|88\/2|1070/],
    ['la facture au Chemin des Vignes 4, 1009 Pully', /Vignes|1009/],
    ['ships to 5 Main Street today', /Main Street/],
    ['ships to 123 N. Main St., Apt 4, Chicago, IL 60642-1234', /Main St|Apt 4|60642/],
    ['to London SW1A 1AA', /SW1A/],
    ['to Dublin 2, D02 X285', /X285/],
    ['4140 West 5415 South, Salt Lake City', /5415/],
  ];
  for (const [text, secret] of cases) assert.doesNotMatch(maskPersonalData(text), secret, text);
});

test('dates of birth in the forms people write them; recent dates stay', () => {
  for (const date of [
    '29 July 1991',
    '29. Juli 1991',
    '07/29/1991',
    '1991-07-29',
    '29.07.1991',
    'April 3, 1974',
    '3. Jänner 1979',
    'le 3 mars 1947',
  ])
    assert.doesNotMatch(maskPersonalData(`Born: ${date}.`), /19\d\d/, date);
  assert.equal(maskPersonalData('Die Lieferung kommt am 12.05.2024.'), 'Die Lieferung kommt am 12.05.2024.');
});

test('national numbers: AHV, Irish PPS, French NIR', () => {
  assert.doesNotMatch(maskPersonalData('AHV-Nummer 756.1234.5678.97'), /5678/);
  assert.doesNotMatch(maskPersonalData('PPS 1234567TA'), /1234567/);
  assert.doesNotMatch(maskPersonalData('n° 1 47 03 35 238 005 42'), /238 005/);
});

test('ordinary German nouns and product words stay', () => {
  const text = 'Die Rechnung für das Paket Premium liegt im Kundenportal. Bauer und Koch finden Sie im Handbuch, Kapitel Lieferung.';
  assert.equal(maskPersonalData(text), text);
});

test('a signature keeps its lines: a masked street does not swallow the line break', () => {
  const out = maskPersonalData('Grüße\n> Friedrich-Ebert-Straße 112\n> 45127 Essen');
  assert.equal(out.split('\n').length, 3, out);
  assert.doesNotMatch(out, /Ebert|45127/);
});

/** SMALL with a wider list of given names, some of them also words ("Lander"). */
const WIDER: NameGazetteer = {
  ...SMALL,
  isListedFirstName: (w) => ['jurgen', 'eilidh', 'padraig', 'lander', 'seraina'].includes(nameKey(w)),
};

test('given names of the wider lists count where the context says a name stands, not on their own', () => {
  const mask = nameMasker(WIDER);
  assert.equal(mask('In welche Länder liefern wir? Alle Länder der Union.'), 'In welche Länder liefern wir? Alle Länder der Union.');
  assert.equal(mask('Jürgen Krämer hat angerufen.'), '[name] hat angerufen.');
  assert.equal(mask('> Le meas,\n> Pádraig'), '> Le meas,\n> [name]');
  assert.equal(mask('Mit freundlichen Grüssen\nJürgen'), 'Mit freundlichen Grüssen\n[name]');
});

test('the name after a word for a relative, neighbour or colleague', () => {
  const mask = nameMasker(WIDER);
  assert.equal(mask('your daughter Eilidh can sign for it'), 'your daughter [name] can sign for it');
  assert.equal(mask('Ihre Mitbewohnerin Seraina Caflisch nimmt es an.'), 'Ihre Mitbewohnerin [name] nimmt es an.');
  assert.equal(mask('votre voisin, Yannick Le Bihan, a signé'), 'votre voisin, [name], a signé');
  // An everyday noun after the word stays, and so does the word itself.
  assert.equal(mask('Sagen Sie Ihrem Mann Rechnung und Team.'), 'Sagen Sie Ihrem Mann Rechnung und Team.');
});

test('a name found once is masked wherever it recurs: after a title, in a company line', () => {
  assert.equal(nameMasker(NO_NAMES)('> Wendling & Söhne GmbH', ['Wendling']), '> [name] & Söhne GmbH');
  const out = maskPersonalData('Guten Tag Herr Wendling,\n\nalles erledigt.\n\n> Gregor Wendling\n> Wendling & Söhne GmbH');
  assert.doesNotMatch(out, /Wendling|Gregor/);
  // A greeting's closing is no name: "Liebe Grüße" stays.
  assert.equal(maskPersonalData('Danke!\n\nLiebe Grüße\nDas Service-Team'), 'Danke!\n\nLiebe Grüße\nDas Service-Team');
});
