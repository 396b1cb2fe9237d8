/**
 * `cosineTo(a)(b)` is `cosine(a, b)` to the bit: the ranking compares one probe with hundreds of
 * candidates and keeps each decoded vector's norm, which must not move a single score.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cosine, cosineTo, decodeVector, encodeVector } from '../../src/retrieval/vectors';

/** Deterministic pseudo-random numbers (a linear congruential generator), so a failure repeats. */
function numbers(seed: number, n: number): number[] {
  let x = seed;
  return Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 1073741824 - 1;
  });
}

test('the same value as cosine for decoded and plain vectors, however often asked', () => {
  const probe = numbers(7, 512);
  const toProbe = cosineTo(probe);
  for (let seed = 1; seed <= 50; seed++) {
    const decoded = decodeVector(encodeVector(numbers(seed, 512)))!;
    const plain = numbers(seed * 31, 512);
    assert.equal(toProbe(decoded), cosine(probe, decoded));
    assert.equal(toProbe(decoded), cosine(probe, decoded), 'the kept norm gives the same again');
    assert.equal(toProbe(plain), cosine(probe, plain));
    assert.equal(cosineTo(decoded)(plain), cosine(decoded, plain));
  }
});

test('zero vectors, other lengths and empty vectors compare as 0, as cosine does', () => {
  const probe = numbers(3, 8);
  assert.equal(cosineTo(probe)(new Array<number>(8).fill(0)), 0);
  assert.equal(cosineTo(probe)(decodeVector(encodeVector(new Array<number>(8).fill(0)))!), 0);
  assert.equal(cosineTo(new Array<number>(8).fill(0))(probe), 0);
  assert.equal(cosineTo(probe)(numbers(4, 9)), 0);
  assert.equal(cosineTo([])([]), 0);
});
