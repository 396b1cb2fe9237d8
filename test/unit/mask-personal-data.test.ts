import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskPersonalData } from '../../src/retrieval/mask-personal-data';

/** Asserts the secret is gone and the placeholder is there. */
function masks(text: string, secret: string | RegExp, placeholder: string): string {
  const out = maskPersonalData(text);
  if (typeof secret === 'string') assert.ok(!out.includes(secret), `"${secret}" still in: ${out}`);
  else assert.doesNotMatch(out, secret);
  assert.ok(out.includes(placeholder), `no ${placeholder} in: ${out}`);
  return out;
}

test('IBAN, with and without spaces', () => {
  masks('Bitte überweisen Sie auf DE89 3704 0044 0532 0130 00.', '3704', '[IBAN]');
  masks('IBAN: DE89370400440532013000', '370400440532013000', '[IBAN]');
  masks('Our account GB29 NWBK 6016 1331 9268 19 is the right one.', 'NWBK', '[IBAN]');
});

test('phone numbers: international, 0049 and German area codes', () => {
  masks('Rufen Sie uns an: +49 30 1234567.', '1234567', '[phone]');
  masks('Tel. 0049 (0)89 / 123 456 78', '123 456', '[phone]');
  masks('Mobil 0171-2345678 oder 030/9876543', /2345678|9876543/, '[phone]');
  masks('Call +44 20 7946 0958 any time', '7946', '[phone]');
});

test('customer, order and invoice numbers in German and English', () => {
  const de = masks('Ihre Kundennummer 12345 und die Rechnung Nr. RE-2024-0815.', /12345|RE-2024-0815/, '[customer number]');
  assert.match(de, /Rechnung Nr\. \[invoice number\]/);
  masks('Kd.-Nr.: 998877', '998877', '[customer number]');
  masks('Bestellnummer: 4711-AB', '4711-AB', '[order number]');
  masks('Your order #A-77812 has shipped.', 'A-77812', '[order number]');
  masks('invoice no. INV-2024/0042 is paid', 'INV-2024/0042', '[invoice number]');
  masks('customer ID C-55 asked', 'C-55', '[customer number]');
  masks('Die Rechnung 2024-117 wurde zweimal abgebucht.', '2024-117', '[invoice number]');
});

test('account and card numbers', () => {
  masks('Kontonummer 1234567890 bei der Sparkasse', '1234567890', '[account number]');
  masks('Karte 4111 1111 1111 1111 wurde belastet', '4111', '[card number]');
  masks('card 5500-0000-0000-0004 expired', '5500', '[card number]');
  masks('Visa 4111111111111111', '4111111111111111', '[card number]');
});

test('postal addresses: German street, postcode and town; English street', () => {
  const out = masks('Lieferadresse: Musterstraße 12, 10115 Berlin', /Musterstraße|10115|Berlin/, '[address]');
  assert.match(out, /\[postcode town\]/);
  masks('Hauptstr. 5a, 80331 München', /Hauptstr|80331|München/, '[address]');
  masks('Please ship to 221 Baker Street, London.', 'Baker', '[address]');
});

test('names after titles and in greetings', () => {
  masks('Sehr geehrte Frau Schmidt,\n\nvielen Dank.', 'Schmidt', 'Frau [name]');
  masks('Sehr geehrter Herr Dr. Müller-Lüdenscheidt,', 'Müller', '[name]');
  masks('Dear Mr. Smith,\nthank you.', 'Smith', 'Mr. [name]');
  masks('Dear Ms Jones,', 'Jones', '[name]');
  masks('Hallo Erika,\nwir haben', 'Erika', 'Hallo [name]');
  masks('Hi Anna!', 'Anna', 'Hi [name]');
});

test('dates of birth', () => {
  masks('Geburtsdatum: 03.05.1980', '1980', '[date of birth]');
  masks('geboren am 3. Mai 1980 in Köln', 'Mai 1980', '[date of birth]');
  masks('date of birth 1980-05-03', '1980-05-03', '[date of birth]');
  masks('born on 3 May 1980', 'May 1980', '[date of birth]');
});

test('email addresses', () => {
  masks('Schreiben Sie an erika.mustermann@firma.example bitte.', 'erika.mustermann', '[email]');
});

test('ordinary support prose stays readable and unchanged', () => {
  const text =
    'Wir haben die doppelte Abbuchung geprüft und die Erstattung veranlasst. Die Gutschrift erscheint in 3 bis 5 Werktagen. ' +
    'The parcel service reports a delay of two days; delivery will follow on 12.05.2024.';
  assert.equal(maskPersonalData(text), text);
  assert.equal(maskPersonalData('Please bring 5 items and order online.'), 'Please bring 5 items and order online.');
});

test('masking is idempotent', () => {
  const once = maskPersonalData(
    'Sehr geehrte Frau Schmidt, Ihre Kundennummer 12345, IBAN DE89 3704 0044 0532 0130 00, Tel. +49 30 1234567.',
  );
  assert.equal(maskPersonalData(once), once);
});

test('post-office boxes, house names, Eircodes with any letters, National Insurance numbers with spaces', () => {
  masks('mailing address P.O. Box 2381, Tulsa, OK 74101', '2381', '[address]');
  masks('Unterlagen bitte an Postfach 60 08 12, 20221 Hamburg', '60 08 12', '[address]');
  masks('> Glebe House, Kilmacow, Co. Kilkenny X91 F2C7', 'Glebe', '[address]');
  masks('> The Old Rectory, Little Snoring, Norfolk NR21 0HZ', 'Rectory', '[address]');
  masks('the bills go to Cork T23 BX45', 'BX45', '[postcode]');
  masks('NI number AB 12 34 56 C on file', '34 56', '[national number]');
  // A house word with no address on its line stays.
  const text = 'The Old Forge, our new shop, opens in May.';
  assert.equal(maskPersonalData(text), text);
});

test('an e-mail address is masked whole before what is known masks a name inside it', () => {
  const known = { names: ['strauss'], emails: [], numbers: [], lines: [] };
  assert.equal(maskPersonalData('an Ihren Sohn unter markus.strauss@posteo.example', known), 'an Ihren Sohn unter [email]');
});
