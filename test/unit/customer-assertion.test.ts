/**
 * The customer-asserted verdict (src/drafting/customer-assertion.ts, src/drafting/grounding-check.ts):
 * the customer's mail supports a restatement of what the customer asked, never a commitment of
 * ours; and with `everySentence` a bare statement no source supports is caught too. Words decide
 * meaning here (no embedder).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asksOnly, citesPriorPromise, isCommitment, isRestatement, restatedPart } from '../../src/drafting/customer-assertion';
import { isCourtesy } from '../../src/drafting/claim-sentences';
import { checkGrounding, needsPerson, type SupportItem } from '../../src/drafting/grounding-check';
import { DRAFT_FLAGS, GROUNDING_VERDICTS } from '../../src/drafting/drafting.contract';
import { groundingFlags } from '../../src/email/draft/draft-grounding';

const MAIL: SupportItem = {
  sourceId: 'email-1',
  title: 'Refund',
  text: 'Hello, as agreed on the phone you will refund 480 EUR by Friday. Also: is the Trail jacket waterproof? Tom',
  fromCustomer: true,
};
const MAIL_DE: SupportItem = {
  sourceId: 'email-2',
  title: 'Konto',
  text: 'Die Hotline hat gesagt, mein Konto wird heute entsperrt und ich bekomme 480 EUR bis Freitag zurück.',
  fromCustomer: true,
};
const RETURNS: SupportItem = {
  sourceId: 'knowledge:returns.md#1',
  title: 'Returns',
  text: 'You can return an item within 30 days of delivery. Print the free return label from your customer account.',
};
const body = (...lines: string[]) => ['Hello Tom,', '', ...lines, '', 'Best regards', 'The support team'].join('\n');
const verdicts = async (b: string, items: SupportItem[], everySentence = true) =>
  (await checkGrounding(b, [], items, { everySentence })).sentences.filter((s) => s.verdict !== null).map((s) => [s.text, s.verdict]);

test('commitments, restatements and promises are told apart (English and German)', () => {
  for (const s of [
    'We will refund 480 EUR by Friday.',
    'Your account has been unlocked.',
    'Ihr Konto wurde entsperrt.',
    'Shipping on your order is free.',
    'Wir machen eine Ausnahme.',
    'Sie erhalten einen Gutschein.',
  ])
    assert.ok(isCommitment(s), s);
  for (const s of ['The Trail jacket is water-resistant.', 'Die Jacke ist wasserabweisend.']) assert.ok(!isCommitment(s), s);
  assert.ok(isRestatement('You ask whether the Trail jacket is waterproof.'));
  assert.ok(isRestatement('Sie schreiben, dass unser Kollege Ihnen kostenlosen Versand versprochen hat.'));
  assert.ok(!isRestatement('You wrote that we agreed on a refund, and we will send it by Friday.'), 'our own voice inside a report');
  assert.ok(!isRestatement('As you wrote, we will refund 480 EUR.'), '"as you wrote" takes the words as ours');
  assert.equal(restatedPart('You ask whether the Trail jacket is waterproof.'), 'the Trail jacket is waterproof.');
  assert.ok(citesPriorPromise('As our colleague promised, shipping on your order is free.'));
  assert.ok(citesPriorPromise('Wie telefonisch vereinbart erstatten wir Ihnen 480 EUR.'));
  assert.ok(!citesPriorPromise('Sie schreiben, dass es wie vereinbart erstattet wird.'), 'a report of what the customer wrote');
});

test('courtesy is left out of every-sentence checking, unless it carries a commitment', () => {
  for (const s of [
    'We are sorry for the trouble.',
    'Es tut uns leid für die Unannehmlichkeiten.',
    'We hope this helps.',
    'A colleague will get back to you.',
  ])
    assert.ok(isCourtesy(s), s);
  for (const s of [
    'Your colleague promised free shipping, so shipping is free.',
    'We are sorry, your refund of 20 EUR is on its way.',
    'The jacket is waterproof.',
  ])
    assert.ok(!isCourtesy(s), s);
});

test('a commitment only the customer made is customer-asserted, quoted or repeated in our voice; it holds the draft', async () => {
  const quoted = await checkGrounding(body('As agreed on the phone you will refund 480 EUR by Friday.'), [], [RETURNS, MAIL]);
  assert.deepEqual(
    quoted.sentences.map((s) => s.verdict),
    [null, GROUNDING_VERDICTS.customerAsserted, null, null],
  );
  assert.deepEqual(quoted.sentences[1]!.supportedBy, [MAIL.sourceId]);
  assert.equal(quoted.customerAsserted, 1);
  assert.ok(needsPerson(GROUNDING_VERDICTS.customerAsserted));
  assert.deepEqual(groundingFlags(quoted), [DRAFT_FLAGS.customerAsserted]);
  // Rephrased in our voice: its amount and day come from the mail alone.
  assert.deepEqual(await verdicts(body('We will transfer the 480 EUR to you on Friday.'), [RETURNS, MAIL]), [
    ['We will transfer the 480 EUR to you on Friday.', GROUNDING_VERDICTS.customerAsserted],
  ]);
  assert.deepEqual(await verdicts(body('Ihr Konto wurde heute entsperrt.'), [RETURNS, MAIL_DE]), [
    ['Ihr Konto wurde heute entsperrt.', GROUNDING_VERDICTS.customerAsserted],
  ]);
});

test('a restatement of the question rests on the mail; a knowledge-backed answer on its passage; neither holds the draft', async () => {
  const r = await checkGrounding(
    body('You ask whether the Trail jacket is waterproof.', 'You can return an item within 30 days of delivery.'),
    [],
    [RETURNS, MAIL],
    { everySentence: true },
  );
  assert.deepEqual(
    r.sentences.filter((s) => s.verdict).map((s) => [s.verdict, s.supportedBy]),
    [
      [GROUNDING_VERDICTS.supported, [MAIL.sourceId]],
      [GROUNDING_VERDICTS.supported, [RETURNS.sourceId]],
    ],
  );
  assert.deepEqual(groundingFlags(r), []);
});

test('every sentence: a bare statement nothing supports is caught, and counted apart from the factual ones', async () => {
  const b = body('Your account has been unlocked.', 'The Trail jacket is waterproof.', 'We are sorry for the trouble.');
  // The rules alone call none of these factual: without everySentence nothing is checked.
  assert.deepEqual(await verdicts(b, [RETURNS, MAIL], false), []);
  const r = await checkGrounding(b, [], [RETURNS, MAIL], { everySentence: true });
  assert.deepEqual(
    r.sentences.filter((s) => s.verdict).map((s) => [s.text, s.verdict, s.factual]),
    [
      ['Your account has been unlocked.', GROUNDING_VERDICTS.unsupported, false],
      // The customer asked whether it is; asking does not make it so.
      ['The Trail jacket is waterproof.', GROUNDING_VERDICTS.unsupported, false],
    ],
  );
  assert.equal(r.claims, 0);
  assert.equal(r.otherChecked, 2);
  assert.equal(r.otherUnsupported, 2);
  // Held for autonomy through the stored claims, but no reviewer flag for sentences outside the factual rules.
  assert.deepEqual(groundingFlags(r), []);
});

test('a question commits nothing; our offer of a commitment, or a commitment stated beside it or inside it, does (English and German)', () => {
  for (const s of [
    'Has your account been unlocked?',
    'When did you send the boots back?',
    'Would you like us to check the tracking number?',
    'You ask whether we will refund 480 EUR by Friday.',
    'Sie fragen, ob wir Ihnen 480 EUR bis Freitag erstatten werden?',
    'Möchten Sie, dass wir die Sendungsverfolgung prüfen?',
    'Wurde Ihr Konto schon entsperrt?',
  ]) {
    assert.ok(!isCommitment(s), s);
    assert.ok(asksOnly(s), s);
  }
  for (const s of [
    // Our offer of something that commits binds us once the customer says yes.
    'Would you like a refund of 480 EUR?',
    'Would you like a refund of 480 EUR.',
    'Shall we transfer the 480 EUR on Friday?',
    'Tom, would you like a refund of 480 EUR or a voucher?',
    'Möchten Sie eine Erstattung von 480 EUR?',
    'Möchten Sie, dass wir Ihnen 480 EUR erstatten?',
    'Sollen wir Ihnen den Gutschein über 30 EUR bar auszahlen?',
    // A clause stated before the question, or after it.
    'Since we will refund 480 EUR, shall we transfer it Friday?',
    'We will refund 480 EUR, is that all right?',
    'Would you like the refund to your card, as we agreed?',
    'Da wir Ihnen 480 EUR erstatten, sollen wir das Geld am Freitag überweisen?',
    'Möchten Sie den Gutschein, den wir Ihnen versprochen haben?',
    'Wir erstatten Ihnen die 120 EUR, möchten Sie das Geld auf Ihr Konto?',
    'You asked whether your refund of 480 EUR was processed, and it has been refunded.',
    // A statement inside the question, in our word order or in a "that" clause.
    'Would you like the 50 EUR voucher that we promised?',
    'Would you like the 50 EUR voucher we promised you by email?',
    'Did you know that your account was unlocked?',
    'Wussten Sie schon, dass wir Ihnen bis Mittwoch eine kostenlose Ersatzjacke schicken?',
    // A question that expects yes.
    "Haven't we already refunded the 480 EUR?",
    'Haben wir Ihnen nicht bereits 480 EUR erstattet?',
    // A question mark alone makes no question; a tag is no question of the statement before it.
    'We will refund 480 EUR by Friday?',
    'Ihr Konto wurde entsperrt, oder?',
    // A conditional that only looks like a question.
    'Should the parcel be lost we will refund 480 EUR.',
    'Wenn Sie möchten, können wir Ihnen 480 EUR überweisen.',
  ]) {
    assert.ok(isCommitment(s), s);
    assert.ok(!asksOnly(s), s);
  }
  // A statement beside the question needs a source of its own: the mail supports the question only.
  assert.ok(!asksOnly('The Trail jacket is waterproof, would you like one?'));
  assert.equal(restatedPart('Has your account been unlocked?'), 'your account been unlocked?');
  // An offer is no restatement: it is compared whole.
  assert.equal(restatedPart('Would you like a refund of 480 EUR?'), 'Would you like a refund of 480 EUR?');
});

test('a question repeated from the mail rests on it; an invented figure in a question, or a commitment beside it, holds the draft', async () => {
  const mail: SupportItem = {
    sourceId: 'email-3',
    title: 'Refund',
    text: 'Can I get a refund of 480 EUR by Friday? Olga',
    fromCustomer: true,
  };
  const mailDe: SupportItem = {
    sourceId: 'email-4',
    title: 'Erstattung',
    text: 'Bekomme ich die 480 EUR bis Freitag zurück? Olga',
    fromCustomer: true,
  };
  // Our offer of the customer's own figures is a commitment resting on the mail alone.
  assert.deepEqual(await verdicts(body('Would you like a refund of 480 EUR by Friday?'), [RETURNS, mail]), [
    ['Would you like a refund of 480 EUR by Friday?', GROUNDING_VERDICTS.customerAsserted],
  ]);
  assert.deepEqual(await verdicts(body('Sie fragen, ob Sie die 480 EUR bis Freitag zurückbekommen?'), [RETURNS, mailDe]), [
    ['Sie fragen, ob Sie die 480 EUR bis Freitag zurückbekommen?', GROUNDING_VERDICTS.supported],
  ]);
  // The question asks about an amount nobody named: nothing supports it.
  assert.deepEqual(await verdicts(body('Would you like a refund of 520 EUR by Friday?'), [RETURNS, mail]), [
    ['Would you like a refund of 520 EUR by Friday?', GROUNDING_VERDICTS.unsupported],
  ]);
  const smuggled = await checkGrounding(body('Since we will refund 480 EUR, shall we transfer it on Friday?'), [], [RETURNS, mail], {
    everySentence: true,
  });
  assert.deepEqual(
    smuggled.sentences.filter((s) => s.verdict).map((s) => s.verdict),
    [GROUNDING_VERDICTS.customerAsserted],
  );
  assert.deepEqual(groundingFlags(smuggled), [DRAFT_FLAGS.customerAsserted]);
  assert.deepEqual(await verdicts(body('Wir erstatten Ihnen die 480 EUR, möchten Sie das Geld bis Freitag?'), [RETURNS, mailDe]), [
    ['Wir erstatten Ihnen die 480 EUR, möchten Sie das Geld bis Freitag?', GROUNDING_VERDICTS.customerAsserted],
  ]);
});
