/**
 * The floor of masking on mail written apart from its rules: four held-out sets of replies (DE,
 * AT, CH, UK, US, IE, FR formats; see test/fixtures/masking/README.md for what each was used for)
 * and public US addresses from usaddress's test data. A fixed labelled set,
 * counted, no clock. `node --import tsx scripts/eval/masking.ts` prints the same figures with
 * what survived and which ordinary words were masked.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { maskPersonalData } from '../../src/retrieval/mask-personal-data';
import { HELD_OUT_REPLIES } from '../fixtures/masking/held-out-replies';
import { HELD_OUT_REPLIES_2 } from '../fixtures/masking/held-out-replies-2';
import { HELD_OUT_REPLIES_3 } from '../fixtures/masking/held-out-replies-3';
import { HELD_OUT_REPLIES_4 } from '../fixtures/masking/held-out-replies-4';
import { PUBLIC_US_ADDRESS_REPLIES } from '../fixtures/masking/public-us-addresses';
import { describe, measureMasking } from '../support/masking-measure';

test('the held-out set is large and varied enough to measure', () => {
  const tokens = HELD_OUT_REPLIES.reduce((n, r) => n + r.personal.length, 0);
  assert.ok(HELD_OUT_REPLIES.length >= 16, `${HELD_OUT_REPLIES.length} replies`);
  assert.ok(tokens >= 64, `${tokens} tokens`);
  for (const region of ['de-DE', 'de-AT', 'de-CH', 'en-GB', 'en-US', 'en-IE', 'fr-FR'])
    assert.ok(
      HELD_OUT_REPLIES.some((r) => r.region === region),
      region,
    );
});

test('held out, by patterns and names alone: no personal token left', () => {
  const f = measureMasking(HELD_OUT_REPLIES, false);
  console.log(describe('held-out, patterns alone', f));
  // Its survivors (7 of 116 when first run) led to rules since, so the floor is what they left.
  assert.ok(f.survivors.length * 16 <= f.tokens, describe('held-out', f));
  assert.deepEqual(f.survivors, [], describe('held-out', f));
  assert.ok(f.ordinaryMasked.length <= 8, `ordinary words masked: ${f.ordinaryMasked.join(', ')}`);
});

test('held out, with what is known of the customer: no token left', () => {
  const f = measureMasking(HELD_OUT_REPLIES, true);
  console.log(describe('held-out, with what is known', f));
  assert.deepEqual(f.survivors, [], describe('held-out', f));
});

test('the fourth held-out set, written before the rules were read and run once they were done: at most 5 of its 100 tokens left, no ordinary word masked', () => {
  const tokens = HELD_OUT_REPLIES_4.reduce((n, r) => n + r.personal.length, 0);
  assert.ok(HELD_OUT_REPLIES_4.length >= 16 && tokens >= 80, `${HELD_OUT_REPLIES_4.length} replies, ${tokens} tokens`);
  const f = measureMasking(HELD_OUT_REPLIES_4, false);
  console.log(describe('held-out 4, patterns alone', f));
  assert.ok(f.survivors.length * 16 <= f.tokens, describe('held-out 4', f));
  assert.ok(f.survivors.length <= 5, describe('held-out 4', f));
  assert.deepEqual(
    f.survivors.filter((s) => ['email', 'iban', 'phone'].includes(s.kind)),
    [],
  );
  assert.deepEqual(f.ordinaryMasked, []);
  assert.ok(measureMasking(HELD_OUT_REPLIES_4, true).survivors.length <= 4);
});

test('the third held-out set (blind 4 of 66; its survivors led to rules since, so a floor only): no token left, no ordinary word masked', () => {
  const f = measureMasking(HELD_OUT_REPLIES_3, false);
  console.log(describe('held-out 3, patterns alone', f));
  assert.deepEqual(f.survivors, [], describe('held-out 3', f));
  assert.deepEqual(measureMasking(HELD_OUT_REPLIES_3, true).survivors, []);
  assert.deepEqual(f.ordinaryMasked, []);
});

test('the second held-out set (its survivors led to rules, so a floor only): no token left, none with what is known', () => {
  const f = measureMasking(HELD_OUT_REPLIES_2, false);
  console.log(describe('held-out 2, patterns alone', f));
  assert.deepEqual(f.survivors, [], describe('held-out 2', f));
  assert.deepEqual(measureMasking(HELD_OUT_REPLIES_2, true).survivors, []);
  assert.ok(f.ordinaryMasked.length <= 1, `ordinary words masked: ${f.ordinaryMasked.join(', ')}`);
});

test('public US addresses: every street and ZIP code masked, no place or state word lost', () => {
  const f = measureMasking(PUBLIC_US_ADDRESS_REPLIES, false);
  console.log(describe('public US addresses', f));
  assert.deepEqual(f.survivors, []);
  assert.deepEqual(f.ordinaryMasked, []);
});

test('support prose without personal data keeps its nouns and product words: the knowledge files get no name, address or date placeholder', () => {
  const dir = path.resolve(__dirname, '../eval/knowledge');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(path.join(dir, file), 'utf8');
    const out = maskPersonalData(text);
    assert.doesNotMatch(out, /\[(?:name|address|date|postcode|ZIP|national number)\]/, file);
  }
});
