/**
 * The gazetteer's compact word table: a word's flags are those of every list it is on, looked up
 * without case or accents, and a word on no list has none; the shipped lists answer as before.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compactWordFlags, zxcvbnNameGazetteer } from '../../src/retrieval/name-gazetteer.zxcvbn';

test('flags of every list a word is on, without case or accents; none for an unlisted or one-letter word', () => {
  const flagsOf = compactWordFlags([
    { flag: 1, words: [['Anna', 'Seán', 'Rose'], undefined] },
    { flag: 4, words: [['Bauer', 'rose', 7, 'X']] },
    { flag: 8, words: [['Rose', 'und']] },
  ]);
  assert.equal(flagsOf('anna'), 1);
  assert.equal(flagsOf('Sean'), 1);
  assert.equal(flagsOf('SEÁN'), 1);
  assert.equal(flagsOf('Rose'), 1 | 4 | 8);
  assert.equal(flagsOf('Bauer'), 4);
  assert.equal(flagsOf('und'), 8);
  assert.equal(flagsOf('Zebra'), 0);
  assert.equal(flagsOf('x'), 0);
  assert.equal(flagsOf(''), 0);
  assert.equal(compactWordFlags([])('Anna'), 0);
});

test('the shipped lists: given names, wider given names, surnames and everyday words', () => {
  const g = zxcvbnNameGazetteer();
  assert.ok(g.isFirstName('Anneliese'));
  assert.ok(!g.isFirstName('Klaus') || g.isListedFirstName?.('Klaus'));
  assert.ok(g.isListedFirstName?.('Klaus'));
  assert.ok(g.isSurname('Müller'));
  assert.ok(g.isCommonWord('und'));
  assert.ok(!g.isSurname('Qwzrtxv'));
});
