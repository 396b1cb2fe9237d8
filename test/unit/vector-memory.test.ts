import assert from 'node:assert/strict';
import { test } from 'node:test';
import { emailPassages, vectorProbe } from '../../src/retrieval/passages';
import { rememberVectors } from '../../src/retrieval/vector-memory';
import type { Embedder } from '../../src/retrieval/embedder.port';

function counting(): { embedder: Embedder; asked: string[][] } {
  const asked: string[][] = [];
  return {
    asked,
    embedder: {
      model: 'm',
      embed(texts) {
        asked.push([...texts]);
        return Promise.resolve(texts.map((t) => [t.length]));
      },
    },
  };
}

test('a new email is searched with the text its index step embedded: its first passage', () => {
  const email = { subject: 'Rechnung doppelt', text: 'Guten Tag,\n\n> alte Nachricht\nbitte prüfen Sie die Abbuchung.' };
  assert.equal(vectorProbe(email), emailPassages(email)[0]);
  assert.doesNotMatch(vectorProbe(email), /alte Nachricht/, 'quoted history is not part of the probe');
  assert.equal(vectorProbe({ subject: '', text: '' }), '');
});

test('vectors are remembered by their exact text: the probe after the index step costs no request', async () => {
  const { embedder, asked } = counting();
  const remembered = rememberVectors(embedder, { kindsAlike: true });
  assert.deepEqual(await remembered.embed(['first passage', 'second'], 'passage'), [[13], [6]]);
  assert.deepEqual(await remembered.embed(['first passage'], 'query'), [[13]]);
  assert.deepEqual(await remembered.embed(['second', 'new', 'new'], 'query'), [[6], [3], [3]]);
  assert.deepEqual(asked, [['first passage', 'second'], ['new']], 'only unseen texts are asked, each once');
});

test('with E5 prefixes or an input type the kinds never share a vector, and the memory is bounded', async () => {
  const { embedder, asked } = counting();
  const remembered = rememberVectors(embedder, { kindsAlike: false, size: 2 });
  await remembered.embed(['a'], 'passage');
  await remembered.embed(['a'], 'query');
  assert.equal(asked.length, 2);
  await remembered.embed(['b'], 'passage');
  await remembered.embed(['a'], 'passage');
  assert.equal(asked.length, 4, 'the oldest of three entries was dropped');
});

test('a vector asked again stays: the least recently used one leaves first', async () => {
  const { embedder, asked } = counting();
  const remembered = rememberVectors(embedder, { kindsAlike: true, size: 2 });
  await remembered.embed(['knowledge sentence', 'email one'], 'passage');
  await remembered.embed(['knowledge sentence'], 'passage');
  await remembered.embed(['email two'], 'passage');
  assert.deepEqual(await remembered.embed(['knowledge sentence'], 'passage'), [[18]]);
  assert.deepEqual(asked, [['knowledge sentence', 'email one'], ['email two']], 'the sentence used again was kept, the email left');
});
