/**
 * The eval's labelled set stays what its README promises: enough knowledge files and questions in
 * both languages, cross-language questions and questions without an answer, every label valid
 * (loadLabelledSet refuses a label naming a file that does not exist).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadLabelledSet } from '../../scripts/eval/labelled-set';
import { languagePair } from '../../scripts/eval/metrics';

test('the labelled set has its promised size and mix', () => {
  const set = loadLabelledSet();
  const langs = [...set.languages.values()];
  assert.ok(set.knowledge.length >= 16, `${set.knowledge.length} knowledge files`);
  assert.ok(langs.includes('de') && langs.includes('en'), 'knowledge in German and English');
  assert.ok(set.questions.length >= 44, `${set.questions.length} questions`);
  const pairs = set.questions.map((q) => languagePair(q.lang, q.expected ? (set.languages.get(q.expected) ?? null) : null));
  assert.ok(pairs.filter((p) => p === 'cross').length >= 10, 'at least 10 cross-language questions');
  assert.ok(pairs.filter((p) => p === 'none').length >= 6, 'at least 6 questions without an answer');
  for (const lang of ['de', 'en'] as const) {
    assert.ok(set.questions.filter((q) => q.lang === lang).length >= 15, `questions in ${lang}`);
  }
  // Every knowledge file is the answer to at least one question, so none is only a distractor.
  const expected = new Set(set.questions.map((q) => q.expected));
  for (const f of set.knowledge) assert.ok(expected.has(f.path), `${f.path} answers a question`);
});
