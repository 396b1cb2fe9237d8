import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  citesFile,
  fileOfSource,
  hitAt,
  languagePair,
  methodFigures,
  rankedFiles,
  reciprocalRank,
  type QuestionOutcome,
} from '../../scripts/eval/metrics';

test('a knowledge source id names its file; other sources name none', () => {
  assert.equal(fileOfSource('knowledge:faq/refunds.md#3'), 'faq/refunds.md');
  assert.equal(fileOfSource('knowledge:a#b.md#12'), 'a#b.md');
  assert.equal(fileOfSource('email-inbox-1-42'), null);
  assert.equal(fileOfSource('email-inbox-1-42:draft:1:sent'), null);
});

test('ranked files: knowledge only, in rank order, each file once at its best passage', () => {
  const items = [
    { sourceId: 'email-1', kind: 'thread' },
    { sourceId: 'knowledge:b.md#2', kind: 'knowledge' },
    { sourceId: 'knowledge:a.md#1', kind: 'knowledge' },
    { sourceId: 'knowledge:b.md#1', kind: 'knowledge' },
    { sourceId: 'x:draft:1:sent', kind: 'own_reply' },
  ];
  assert.deepEqual(rankedFiles(items), ['b.md', 'a.md']);
});

test('recall@k and reciprocal rank', () => {
  const ranked = ['a.md', 'b.md', 'c.md'];
  assert.equal(hitAt(ranked, 'a.md', 1), 1);
  assert.equal(hitAt(ranked, 'b.md', 1), 0);
  assert.equal(hitAt(ranked, 'c.md', 3), 1);
  assert.equal(hitAt(ranked, 'd.md', 3), 0);
  assert.equal(reciprocalRank(ranked, 'b.md'), 0.5);
  assert.equal(reciprocalRank(ranked, 'd.md'), 0);
  assert.equal(reciprocalRank([], 'a.md'), 0);
});

test('a draft cites a file through any passage of it, not through a file of a similar name', () => {
  assert.equal(citesFile(['knowledge:faq/a.md#2', 'email-7'], 'faq/a.md'), true);
  assert.equal(citesFile(['knowledge:faq/a.md.bak#1'], 'faq/a.md'), false);
  assert.equal(citesFile([], 'faq/a.md'), false);
});

test('language pair of a question and its answer', () => {
  assert.equal(languagePair('de', 'de'), 'same');
  assert.equal(languagePair('en', 'de'), 'cross');
  assert.equal(languagePair('en', null), 'none');
});

test('figures per method: rank figures over answerable questions, split by pair; drafts and not-found shares', () => {
  const o = (id: string, pair: QuestionOutcome['pair'], expected: string | null, ranked: string[], cites: boolean, notFound = false) => ({
    id,
    pair,
    expected,
    ranked,
    draftSources: cites && expected ? [`knowledge:${expected}#1`] : [],
    draftNotFound: notFound,
  });
  const f = methodFigures([
    o('s1', 'same', 'a.md', ['a.md', 'b.md'], true),
    o('s2', 'same', 'b.md', ['a.md', 'c.md', 'b.md'], false),
    o('c1', 'cross', 'c.md', ['a.md', 'c.md'], true),
    o('c2', 'cross', 'd.md', [], false, true),
    o('n1', 'none', null, ['a.md'], false, true),
    o('n2', 'none', null, [], false, false),
  ]);
  assert.equal(f.questions, 4);
  assert.equal(f.recallAt1, 1 / 4);
  assert.equal(f.recallAt3, 3 / 4);
  assert.equal(f.mrr, (1 + 1 / 3 + 1 / 2 + 0) / 4);
  assert.deepEqual(f.same, { questions: 2, recallAt1: 0.5, recallAt3: 1, mrr: (1 + 1 / 3) / 2, draftsCitingExpected: 0.5 });
  assert.deepEqual(f.cross, { questions: 2, recallAt1: 0, recallAt3: 0.5, mrr: 0.25, draftsCitingExpected: 0.5 });
  assert.equal(f.draftsCitingExpected, 2 / 4);
  assert.equal(f.noAnswerNotFound, 1 / 2);
  assert.equal(f.noAnswerQuestions, 2);
});

test('no questions give zeros, not NaN', () => {
  const f = methodFigures([]);
  assert.equal(f.recallAt3, 0);
  assert.equal(f.noAnswerNotFound, 0);
});
