import assert from 'node:assert/strict';
import { test } from 'node:test';
import { languageCode } from '../../src/drafting/language-code';
import { parseDraftJson } from '../../src/drafting/draft-prompt';

test('a model names its language as a code, a code with a region, or a name in English or in the language itself', () => {
  assert.equal(languageCode('de'), 'de');
  assert.equal(languageCode('EN'), 'en');
  assert.equal(languageCode('en-US'), 'en');
  assert.equal(languageCode('pt_BR'), 'pt');
  assert.equal(languageCode('English'), 'en');
  assert.equal(languageCode('Deutsch'), 'de');
  assert.equal(languageCode(' german '), 'de');
  assert.equal(languageCode('Français'), 'fr');
});

test('anything else is undetermined: a programming language, an invented code, nothing', () => {
  // Seen from a code model replaying a mailing list about R.
  assert.equal(languageCode('R'), 'und');
  assert.equal(languageCode('xx'), 'und');
  assert.equal(languageCode('Klingon'), 'und');
  assert.equal(languageCode(''), 'und');
  assert.equal(languageCode(42), 'und');
  const parsed = parseDraftJson(JSON.stringify({ language: 'English', subject: 'Re: x', body: 'Hello', claims: [] }));
  assert.equal(parsed?.language, 'en');
});
