/**
 * Never-automatic topics in German, English, French and Spanish, their word boundaries, invisible
 * characters, and hostile input: a megabyte of worst cases for each pattern in linear time.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extraTopicPattern, findNeverAutomatic, neverAutomaticTopics, topicPatterns } from '../../src/autonomy/never-automatic';
import { neverAutomaticMegabytes } from '../support/hostile-inputs';
import { superLinearReports } from '../support/regex-linearity';

const FOUND: Array<[string, string[]]> = [
  ['Ich bitte um Rückerstattung des Betrags.', ['refund']],
  ['Bitte erstatten Sie mir die Kosten.', ['refund']],
  ['I want a refund for this order.', ['refund']],
  ['I will file a chargeback with my bank.', ['refund']],
  ['Je demande un remboursement.', ['refund']],
  ['Quiero un reembolso.', ['refund']],
  ['Ich habe mein Passwort vergessen.', ['account_access']],
  ['Die Passwortänderung klappt nicht, mein Konto ist gesperrt.', ['account_access']],
  ['I cannot log in, please reset my 2FA.', ['account_access']],
  ["J'ai oublié mon mot de passe.", ['account_access']],
  ['Olvidé mi contraseña.', ['account_access']],
  ['Mein Rechtsanwalt wird sich melden.', ['legal']],
  ['Ich verlange Auskunft nach DSGVO.', ['legal']],
  ['This is a GDPR subject access request.', ['legal']],
  ['We will take legal action and see you in court.', ['legal']],
  ['Ich kündige fristlos und schalte die Verbraucherzentrale ein.', ['legal']],
  ['Das ist inakzeptabel, ich will mich beschweren.', ['complaint']],
  ['This is unacceptable. Escalate this to your manager!', ['complaint']],
  ['Je veux déposer une plainte.', ['complaint']],
  ['Die Gebühr von € 12,50 wurde abgebucht.', ['money']],
  ['Es waren EUR 40.', ['money']],
  ['It cost $19.99 last month.', ['money']],
  ['Ich habe 40 Euro bezahlt.', ['money']],
  ['Preis 1.234,50 EUR', ['money']],
  ['That is 30 USD', ['money']],
  ['Bitte senden Sie mir Ihre IBAN.', ['money']],
];

test('each topic is found, in German, English, French and Spanish', () => {
  for (const [text, topics] of FOUND) assert.deepEqual(neverAutomaticTopics(text), topics, text);
  assert.deepEqual(neverAutomaticTopics('Passwort vergessen, Rückerstattung von 20 € und mein Anwalt!').sort(), [
    'account_access',
    'legal',
    'money',
    'refund',
  ]);
});

test('routine questions are not flagged; words inside other words do not count', () => {
  for (const text of [
    'Wann liefern Sie nach Österreich?',
    'What are your opening hours on Saturday?',
    'Kann ich die Lieferadresse noch ändern?',
    'Our product manager team',
    'Order 12345 of 2026-12-01, item 3',
    'Produktmanager Müller',
    'the courtyard entrance',
    'Eurovision is on today',
  ])
    assert.deepEqual(findNeverAutomatic(text), [], text);
  // "Produktmanager" is a compound, "manager" alone is a complaint word.
  assert.deepEqual(neverAutomaticTopics('I want to talk to a manager'), ['complaint']);
});

test('invisible characters and full-width letters do not hide a topic', () => {
  assert.deepEqual(neverAutomaticTopics('Pass\u200Bwort zurücksetzen'), ['account_access']);
  assert.deepEqual(neverAutomaticTopics('Rück\u00ADerstattung'), ['refund']);
  assert.deepEqual(neverAutomaticTopics('\uFF52\uFF45\uFF46\uFF55\uFF4E\uFF44 please'), ['refund']);
});

test("a policy's own phrases are whole words, case-insensitive", () => {
  assert.deepEqual(findNeverAutomatic('Ist das ein GARANTIEFALL?', ['Garantiefall']), [
    { topic: 'extra:Garantiefall', match: 'GARANTIEFALL' },
  ]);
  assert.deepEqual(findNeverAutomatic('Garantiefallen', ['Garantiefall']), []);
  assert.deepEqual(findNeverAutomatic('a (b) [c]* d', ['(b) [c]*']), [{ topic: 'extra:(b) [c]*', match: '(b) [c]*' }]);
});

test('a megabyte of hostile input is scanned in linear time', () => {
  const mb = 1 << 20;
  const hostile = neverAutomaticMegabytes();
  // Linear by analysis, not by the clock: the patterns (built from word lists and from a policy's
  // phrases at run time, where the lint on src/ cannot read them) have no super-linear backtracking
  // or moving; an amount is looked for in a fixed window around each currency. The time per
  // megabyte: `npm run bench -- --hostile`.
  for (const re of [...topicPatterns(), ...['hostile phrase', 'a a a a', '(b) [c]*'].map(extraTopicPattern)]) {
    assert.deepEqual(superLinearReports(re), []);
  }
  const found = hostile.map((text) => findNeverAutomatic(text, ['hostile phrase', 'a a a a']).map((f) => f.topic));
  assert.deepEqual(found, [[], [], [], [], [], [], [], [], [], ['complaint'], [], ['money']]);
  // Found at the very end of a megabyte too.
  assert.deepEqual(neverAutomaticTopics(`${'x '.repeat(mb / 2)} Passwort`), ['account_access']);
});
