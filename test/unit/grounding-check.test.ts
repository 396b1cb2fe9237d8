/**
 * The grounding check with hand-made claims and no embedder (word overlap decides): a supported
 * sentence, an invented amount, a sentence tied to the wrong passage, and the formulas of a reply
 * that are no claims.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { draftSentences, keyFacts, sentenceKind } from '../../src/drafting/claim-sentences';
import { GROUNDING_VERDICTS } from '../../src/drafting/drafting.contract';
import { checkGrounding, tieClaims, type SupportItem } from '../../src/drafting/grounding-check';
import type { Embedder } from '../../src/retrieval/embedder.port';

const REFUNDS: SupportItem = {
  sourceId: 'knowledge:billing-refunds.md#2',
  title: 'Billing and refunds › Double charges',
  text: 'If an order was charged twice, we refund the duplicate payment within 5 business days to the original payment method. Please do not dispute the charge with your bank.',
};
const RETURNS: SupportItem = {
  sourceId: 'knowledge:returns.md#1',
  title: 'Returns › How to send something back',
  text: 'You can return an item within 30 days of delivery. Print the free return label from your customer account and drop the parcel at any post office.',
};

const BODY = [
  'Hello Mark,',
  '',
  'thank you for your message about "charged 2x ??".',
  '',
  'We refund the duplicate payment within 5 business days to the original payment method. We will also credit you 20 EUR for the trouble. You can print the free return label from your customer account.',
  '',
  'A colleague will follow up if anything is missing.',
  '',
  'Best regards',
  'The support team',
].join('\n');

test('the sentences of a reply: formulas are no claims, facts and policies are', () => {
  const s = draftSentences(BODY);
  assert.deepEqual(s.slice(0, 2), ['Hello Mark,', 'thank you for your message about "charged 2x ??".']);
  assert.deepEqual(
    s.map((x) => sentenceKind(x)),
    ['formula', 'formula', 'fact', 'fact', 'fact', 'formula', 'formula', 'formula'],
  );
  assert.equal(sentenceKind('(Source: knowledge:returns.md#1)'), 'formula');
  assert.equal(sentenceKind('Here is what we can tell you:'), 'formula');
  assert.equal(sentenceKind('Eine Mitarbeiterin meldet sich so bald wie möglich bei Ihnen.'), 'formula');
  // A follow-up with a deadline is a promise with a fact.
  assert.equal(sentenceKind('A colleague will get back to you within 2 working days.'), 'fact');
  assert.equal(sentenceKind('I am sorry to hear about the trouble.'), 'plain');
  assert.deepEqual([...keyFacts('Samstags von 9 bis 14 Uhr, drei Werktage, 14,99 €, info@shop.example')].sort(), [
    '14',
    '3',
    '9',
    '99',
    'info@shop.example',
    'samstag',
  ]);
  // No month in "E-Mail" or "you may", no number in an article.
  assert.deepEqual([...keyFacts('Antworten Sie auf diese E-Mail; you may reply to one of us, Sie erhalten eine Mail.')], []);
});

test('a claim is tied to its sentence by text, even as a model copies it loosely', () => {
  const s = draftSentences(BODY);
  const tied = tieClaims(s, [
    { sentence: 'we refund the duplicate payment within 5 business days to the original payment method', sourceIds: ['a'] },
    { sentence: 'You can print the free return label from your customer account', sourceIds: ['b'] },
    { sentence: 'Something the body does not say at all', sourceIds: ['c'] },
  ]);
  assert.deepEqual(
    [...tied.entries()],
    [
      [2, ['a']],
      [4, ['b']],
    ],
  );
});

test('supported, invented amount, mis-tied, and the greeting is no claim', async () => {
  const r = await checkGrounding(
    BODY,
    [
      { sentence: 'We refund the duplicate payment within 5 business days to the original payment method.', sourceIds: [REFUNDS.sourceId] },
      { sentence: 'We will also credit you 20 EUR for the trouble.', sourceIds: [REFUNDS.sourceId] },
      // Rests on the returns passage, but the drafter names the refunds one.
      { sentence: 'You can print the free return label from your customer account.', sourceIds: [REFUNDS.sourceId] },
      // A model that calls its greeting a claim is not believed.
      { sentence: 'Hello Mark,', sourceIds: [REFUNDS.sourceId] },
    ],
    [REFUNDS, RETURNS],
  );
  assert.equal(r.by, 'words');
  const verdicts = r.sentences.map((s) => s.verdict);
  assert.deepEqual(verdicts, [
    null,
    null,
    GROUNDING_VERDICTS.supported,
    GROUNDING_VERDICTS.unsupported,
    GROUNDING_VERDICTS.misTied,
    null,
    null,
    null,
  ]);
  assert.deepEqual(r.sentences[2]!.supportedBy, [REFUNDS.sourceId]);
  assert.deepEqual(r.sentences[4]!.supportedBy, [RETURNS.sourceId], 'the passage that does support it is named');
  assert.deepEqual([r.claims, r.supported, r.unsupported, r.misTied], [3, 1, 1, 1]);
});

test('a fact the drafter did not list is checked against every item', async () => {
  const r = await checkGrounding(
    'Hello,\n\nYou can return an item within 30 days of delivery. Returns are free within 60 days.',
    [],
    [REFUNDS, RETURNS],
  );
  assert.deepEqual(
    r.sentences.map((s) => [s.verdict, s.supportedBy]),
    [
      [null, []],
      [GROUNDING_VERDICTS.supported, [RETURNS.sourceId]],
      [GROUNDING_VERDICTS.unsupported, []],
    ],
  );
});

test('with an embedder, meaning decides; an embedder that fails leaves it to the words', async () => {
  // A toy embedder: one dimension per meaning, so "reimburse" and "refund" meet.
  const meanings = [['refund', 'reimburse'], ['duplicate', 'double'], ['payment', 'booking'], ['return', 'label'], ['days']];
  const vector = (t: string) => meanings.map((words) => (words.some((w) => t.toLowerCase().includes(w)) ? 1 : 0) + 0.01);
  const embedder: Embedder = { model: 'toy', embed: (texts) => Promise.resolve(texts.map(vector)) };
  const body = 'We reimburse a double booking at once, in 5 days.';
  const meaning = await checkGrounding(body, [], [REFUNDS], { embedder, minCosine: 0.5 });
  assert.equal(meaning.by, 'embedder');
  assert.equal(meaning.sentences[0]!.verdict, GROUNDING_VERDICTS.supported);
  const failing: Embedder = { model: 'down', embed: () => Promise.reject(new Error('connection refused')) };
  const words = await checkGrounding(body, [], [REFUNDS], { embedder: failing });
  assert.equal(words.by, 'words');
  assert.equal(words.sentences[0]!.verdict, GROUNDING_VERDICTS.unsupported, 'too few shared words');
});

test('a word-for-word quote settles its claim without the embedder; a quote tied to the wrong item still asks it', async () => {
  const asked: string[][] = [];
  const embedder: Embedder = {
    model: 'counting',
    embed(texts) {
      asked.push([...texts]);
      return Promise.resolve(texts.map(() => [1, 0]));
    },
  };
  const quoting =
    'Hello,\n\nYou can return an item within 30 days of delivery. "We refund the duplicate payment within 5 business days to the original payment method." (Source: knowledge:billing-refunds.md#2)';
  const r = await checkGrounding(quoting, [], [REFUNDS, RETURNS], { embedder });
  assert.equal(r.by, 'quotes');
  assert.deepEqual(asked, [], 'nothing was embedded');
  assert.deepEqual(
    r.sentences.map((s) => [s.verdict, s.supportedBy]),
    [
      [null, []],
      [GROUNDING_VERDICTS.supported, [RETURNS.sourceId]],
      [GROUNDING_VERDICTS.supported, [REFUNDS.sourceId]],
    ],
  );

  // The drafter names the refunds passage for a quote of the returns passage: the embedder is asked
  // whether the named one says it too (here every vector is alike, so it does).
  const tied = await checkGrounding(
    'You can return an item within 30 days of delivery.',
    [{ sentence: 'You can return an item within 30 days of delivery.', sourceIds: [REFUNDS.sourceId] }],
    [REFUNDS, RETURNS],
    { embedder },
  );
  assert.equal(tied.by, 'embedder');
  assert.equal(asked.length, 2, 'the claim and the passage sentences');
  // The refunds passage has no "30": the facts keep it from supporting; the quote's item is named.
  assert.equal(tied.sentences[0]!.verdict, GROUNDING_VERDICTS.misTied);
  assert.deepEqual(tied.sentences[0]!.supportedBy, [RETURNS.sourceId]);

  // A quote whose number differs is no quote.
  const changed = await checkGrounding('You can return an item within 60 days of delivery.', [], [RETURNS]);
  assert.equal(changed.sentences[0]!.verdict, GROUNDING_VERDICTS.unsupported);
});
