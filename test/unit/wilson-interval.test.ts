/** The Wilson score interval against values computed by hand (and by R's prop.test without correction). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wilsonInterval } from '../../src/platform/wilson-interval';

const near = (a: number, b: number) => Math.abs(a - b) < 0.0005;

test('known values: 19 of 20, 50 of 50, 0 of 10, 47 of 50', () => {
  const cases: Array<[number, number, number, number]> = [
    [19, 20, 0.7639, 0.9911],
    [50, 50, 0.9287, 1],
    [0, 10, 0, 0.2775],
    [47, 50, 0.8378, 0.9794],
  ];
  for (const [k, n, lower, upper] of cases) {
    const i = wilsonInterval(k, n);
    assert.ok(near(i.lower, lower) && near(i.upper, upper), `${k}/${n}: ${JSON.stringify(i)}`);
  }
});

test('no trials: the whole range; the bounds stay within 0..1 and narrow as trials grow', () => {
  assert.deepEqual(wilsonInterval(0, 0), { lower: 0, upper: 1 });
  const small = wilsonInterval(9, 10);
  const large = wilsonInterval(900, 1000);
  assert.ok(small.lower >= 0 && small.upper <= 1);
  assert.ok(large.upper - large.lower < small.upper - small.lower);
});
