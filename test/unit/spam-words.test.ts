/**
 * The learnt word list of the built-in spam check (src/triage/spam-words.ts): what it reads, and
 * that it stays silent where it learnt nothing.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SPAM_WORDS_FILE, spamTokens, spamWordsScore } from '../../src/triage/spam-words';

test('tokens: subject words marked, link domains, numbers and long words by shape, each once', () => {
  const t = spamTokens('Cheap offer', 'Visit https://www.deals.example.com/x?y=1 now, now! 123456 supercalifragilistic', null);
  assert.ok(t.has('s:cheap') && t.has('s:offer'));
  assert.ok(t.has('url:example.com'));
  assert.ok(t.has('now') && t.has('now!'));
  assert.ok(t.has('num:6'));
  assert.ok(t.has('long:s 20'));
  assert.ok(![...t].some((x) => x.includes('deals.example')), 'the link is not read as words');
});

test('a message of words it never learnt cannot be told: 0.5, no clues', () => {
  const s = spamWordsScore('Qwxz', 'Zyxwv qwrtz plmkj', null);
  assert.equal(s.indicator, 0.5);
  assert.equal(s.clues, 0);
});

test('German and French everyday words carry nothing: the list judges English wording only', () => {
  const listed = new Set(
    readFileSync(SPAM_WORDS_FILE, 'utf8')
      .split('\n')
      .map((l) => l.split('\t')[0]),
  );
  for (const w of ['und', 'das', 'bitte', 'wir', 'nicht', 'vous', 'avec']) assert.ok(!listed.has(w), w);
  const s = spamWordsScore('Frage zu meiner Rechnung', 'Guten Tag, bitte schicken Sie mir die Rechnung noch einmal. Danke!', null);
  assert.ok(s.indicator > 0.2 && s.indicator < 0.8, `indicator ${s.indicator}`);
});

test("classic spam wording reads as spam, a colleague's question as ham", () => {
  const spam = spamWordsScore(
    'Make money fast!!!',
    'Dear friend, click here to receive your FREE offer. 100% guaranteed income from home. To be removed from our mailing list reply with remove.',
    null,
  );
  assert.ok(spam.indicator > 0.95, `spam ${spam.indicator}`);
  const ham = spamWordsScore(
    'Re: build failure on the test machine',
    'I think the patch broke the build; the kernel module does not compile with gcc anymore. Could you check the makefile before I revert it?',
    null,
  );
  assert.ok(ham.indicator < 0.2, `ham ${ham.indicator}`);
});
