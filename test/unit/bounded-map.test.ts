import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boundedMap } from '../../src/platform/bounded-map';

const tick = () => new Promise((r) => setImmediate(r));

test('boundedMap keeps at most `limit` calls in flight and returns results in the items’ order', async () => {
  let inFlight = 0;
  let most = 0;
  const out = await boundedMap([5, 1, 4, 2, 3, 0, 6], 3, async (n) => {
    inFlight++;
    most = Math.max(most, inFlight);
    for (let i = 0; i < n; i++) await tick();
    inFlight--;
    return n * 10;
  });
  assert.deepEqual(out, [50, 10, 40, 20, 30, 0, 60]);
  assert.equal(most, 3);
});

test('boundedMap: after a failure no new call starts, the calls in flight settle, then the failure is thrown', async () => {
  const started: number[] = [];
  const settled: number[] = [];
  await assert.rejects(
    boundedMap([0, 1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      await tick();
      if (n === 1) throw new Error('start refused');
      await tick();
      settled.push(n);
    }),
    /start refused/,
  );
  assert.deepEqual(started, [0, 1]);
  assert.deepEqual(settled, [0]);
});

test('boundedMap on no items calls nothing', async () => {
  assert.deepEqual(await boundedMap([], 8, async () => assert.fail('called')), []);
});
