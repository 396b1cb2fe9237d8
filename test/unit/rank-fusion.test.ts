import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rankHybrid } from '../../src/retrieval/hybrid-ranking';
import { limitEmbedder } from '../../src/retrieval/limited-embedder';
import { fuseRankings, RRF_K } from '../../src/retrieval/rank-fusion';
import { cosine, decodeVector, encodeVector } from '../../src/retrieval/vectors';
import type { Embedder } from '../../src/retrieval/embedder.port';

const id = (s: string) => s;

test('reciprocal rank fusion: 1/(60+rank) summed over the rankings, best first', () => {
  const fused = fuseRankings(
    [
      ['a', 'b', 'c'],
      ['c', 'a'],
    ],
    id,
  );
  assert.deepEqual(
    fused.map((f) => f.item),
    ['a', 'c', 'b'],
  );
  assert.equal(RRF_K, 60);
  assert.equal(fused[0]!.fused, 1 / 61 + 1 / 62);
  assert.deepEqual(fused[0]!.ranks, [1, 2]);
  assert.equal(fused[1]!.fused, 1 / 63 + 1 / 61);
  assert.deepEqual(fused[2]!.ranks, [2, undefined]);
});

test('one ranking alone comes back unchanged; equal scores keep the order of first appearance', () => {
  assert.deepEqual(
    fuseRankings([['x', 'y', 'z']], id).map((f) => f.item),
    ['x', 'y', 'z'],
  );
  // b is first in one ranking, d first in the other: a tie, b seen first.
  assert.deepEqual(
    fuseRankings([['b'], ['d']], id).map((f) => f.item),
    ['b', 'd'],
  );
  assert.deepEqual(fuseRankings([[], []], id), []);
  // A ranking naming an item twice counts it once.
  assert.equal(fuseRankings([['a', 'a']], id)[0]!.fused, 1 / 61);
});

test('vectors are stored as float32 little-endian and read back from any buffer offset', () => {
  const bytes = encodeVector([1, -0.5, 0.25]);
  assert.equal(bytes.length, 12);
  assert.equal(bytes.readFloatLE(4), -0.5);
  const shifted = Buffer.concat([Buffer.from([9]), bytes]).subarray(1); // odd offset, as driver slices may be
  assert.deepEqual([...decodeVector(shifted)!], [1, -0.5, 0.25]);
  assert.equal(decodeVector(null), null);
  assert.equal(decodeVector(Buffer.from([1, 2, 3])), null);
  assert.equal(cosine([1, 0], [0, 1]), 0);
  assert.ok(Math.abs(cosine([1, 1], [2, 2]) - 1) < 1e-12);
  assert.equal(cosine([1, 0], [1, 0, 0]), 0, 'another model’s length: never compared');
  assert.equal(cosine([0, 0], [1, 0]), 0);
});

interface Doc {
  id: string;
  text: string;
  v: number[] | null;
}
const docs: Doc[] = [
  { id: 'words', text: 'Rechnung doppelt abgebucht', v: [0, 1] },
  { id: 'meaning', text: 'Erstattung zu viel gezahlter Beträge', v: [1, 0.1] },
  { id: 'far', text: 'Öffnungszeiten am Feiertag', v: [-1, 0] },
  { id: 'none', text: 'Rechnung ohne Vektor', v: null },
];
const base = {
  probe: 'Rechnung doppelt bezahlt, Geld zurück?',
  candidates: docs,
  key: (d: Doc) => d.id,
  text: (d: Doc) => d.text,
  vector: (d: Doc) => d.v,
  minCosine: 0.5,
};

test('hybrid: words and vectors fused; a vector below the floor brings nothing; the match says how', () => {
  const hybrid = rankHybrid({ ...base, probeVector: [1, 0], method: 'hybrid' });
  assert.deepEqual(
    hybrid.map((r) => r.item.id),
    ['words', 'meaning', 'none'],
  );
  const byId = new Map(hybrid.map((r) => [r.item.id, r.match]));
  assert.deepEqual(byId.get('words'), { fused: 1 / 61, cosine: 0, wordRank: 1 });
  assert.equal(byId.get('meaning')?.vectorRank, 1);
  assert.equal(byId.get('meaning')?.wordRank, undefined);
  assert.ok((byId.get('meaning')?.cosine ?? 0) > 0.99);
  assert.equal(byId.get('none')?.cosine, undefined, 'no vector, no cosine');
  assert.ok(!byId.has('far'), 'the nearest vector is not offered below the floor');
});

test('words only, vectors only, and words when there is no probe vector', () => {
  assert.deepEqual(
    rankHybrid({ ...base, probeVector: [1, 0], method: 'words' }).map((r) => r.item.id),
    ['words', 'none'],
  );
  assert.deepEqual(
    rankHybrid({ ...base, probeVector: [1, 0], method: 'vectors' }).map((r) => r.item.id),
    ['meaning'],
  );
  const degraded = rankHybrid({ ...base, probeVector: null, method: 'vectors' });
  assert.deepEqual(
    degraded.map((r) => r.item.id),
    ['words', 'none'],
  );
  assert.equal(degraded[0]?.match.cosine, undefined);
  // A word ranking the caller has (MariaDB's MATCH) is used as it is.
  assert.deepEqual(
    rankHybrid({ ...base, probeVector: null, method: 'hybrid', byWords: [docs[2]!] }).map((r) => r.item.id),
    ['far'],
  );
});

test('the embedder limiter lets at most N calls run at once, in order, and sends waiting calls of a kind together', async () => {
  let running = 0;
  let peak = 0;
  const requests: string[][] = [];
  const slow: Embedder = {
    model: 'm',
    async embed(texts) {
      running += 1;
      peak = Math.max(peak, running);
      requests.push([...texts]);
      await new Promise((r) => setTimeout(r, 10));
      running -= 1;
      return texts.map((t) => [t.charCodeAt(0)]);
    },
  };
  const limited = limitEmbedder(slow, 2);
  assert.equal(limited.model, 'm');
  const got = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((t) => limited.embed([t], 'passage')));
  assert.equal(peak, 2);
  assert.deepEqual(requests, [['a'], ['b'], ['c', 'd', 'e']], 'the first two go at once, the three that waited as one request');
  assert.deepEqual(
    got,
    ['a', 'b', 'c', 'd', 'e'].map((t) => [[t.charCodeAt(0)]]),
    'each call gets its own vectors',
  );
  const failing = limitEmbedder({ model: 'm', embed: () => Promise.reject(new Error('down')) }, 1);
  await assert.rejects(failing.embed(['x'], 'query'), /down/);
  await assert.rejects(failing.embed(['y'], 'query'), /down/, 'a failure gives its slot back');
  assert.deepEqual(await failing.embed([], 'query'), []);
});

test('the embedder limiter merges only calls of one kind, within 64 texts, and a failed merge asks each call alone', async () => {
  const requests: Array<{ kind: string; texts: string[] }> = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const picky: Embedder = {
    model: 'm',
    async embed(texts, kind) {
      requests.push({ kind, texts: [...texts] });
      if (texts[0] === 'hold') await gate;
      if (texts.includes('bad')) throw new Error('bad text');
      return texts.map(() => [0]);
    },
  };
  const limited = limitEmbedder(picky, 1);
  const hold = limited.embed(['hold'], 'passage');
  const many = Array.from({ length: 70 }, (_, i) => `t${i}`);
  const calls = [
    limited.embed(['q1'], 'query'),
    limited.embed(['p1'], 'passage'),
    limited.embed(['bad'], 'query'),
    limited.embed(['q2'], 'query'),
    limited.embed(many, 'passage'),
  ].map((p) =>
    p.then(
      (v) => v.length,
      (e: Error) => e.message,
    ),
  );
  release();
  await hold;
  assert.deepEqual(await Promise.all(calls), [1, 1, 'bad text', 1, 70]);
  assert.deepEqual(
    requests.map((r) => `${r.kind}:${r.texts.length > 3 ? `${r.texts.length} texts` : r.texts.join(',')}`),
    ['passage:hold', 'query:q1,bad,q2', 'query:q1', 'query:bad', 'query:q2', 'passage:p1', 'passage:70 texts'],
    'queries together (then alone after the failure), passages apart; a call of 70 texts is not merged past 64',
  );
});

test('hybrid: a word match far from the best match in meaning does not count (the word gate)', () => {
  // Six candidates; the customer's words match only "wrong", whose meaning is far from "right".
  const angle = (deg: number) => [Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180)];
  const docs = [
    { id: 'right', v: angle(5) },
    { id: 'near', v: angle(20) },
    { id: 'mid', v: angle(50) },
    { id: 'wrong', v: angle(70) },
    { id: 'far', v: angle(80) },
    { id: 'farthest', v: angle(89) },
  ];
  const withWords = (byWords: typeof docs) =>
    rankHybrid({
      probe: 'irrelevant',
      probeVector: [1, 0],
      candidates: docs,
      key: (d) => d.id,
      text: (d) => d.id,
      vector: (d) => d.v,
      method: 'hybrid',
      minCosine: 0,
      byWords,
    });
  const ranked = withWords([docs[3]!]);
  assert.equal(ranked[0]!.item.id, 'right');
  const wrong = ranked.find((r) => r.item.id === 'wrong')!;
  assert.equal(wrong.match.wordRank, undefined, 'the far word match is left out of the fusion');
  // A word match close in meaning to the best one still counts and is lifted by it.
  const near = withWords([docs[1]!]);
  assert.equal(near[0]!.item.id, 'near');
  assert.equal(near[0]!.match.wordRank, 1);
});
