import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countedAttempt, newlyLostAttempts } from '../../src/platform/lost-attempts';
import { giveUpAfterMs } from '../../src/platform/attempt-deadline';
import { decideRetry } from '../../src/platform/retry-decision';
import { LOST_ATTEMPTS_ALLOWED, PROFILES } from '../../src/platform/activity-profiles.workflow';
import { TransientError } from '../../src/platform/errors';
import { FAILURE_TYPES } from '../../src/platform/contract';

test('an attempt whose row still says processing ended with its worker; one that failed of its own did not', () => {
  assert.equal(newlyLostAttempts(undefined, 1), 0, 'a first attempt has nothing before it');
  assert.equal(newlyLostAttempts({ attempt: 1, status: 'processing', lost: 0 }, 2), 1);
  assert.equal(newlyLostAttempts({ attempt: 1, status: 'failed', lost: 0 }, 2), 0);
  // An attempt that died before it could write its row: the row shows the one before it.
  assert.equal(newlyLostAttempts({ attempt: 1, status: 'failed', lost: 0 }, 3), 1);
  assert.equal(newlyLostAttempts({ attempt: 2, status: 'processing', lost: 1 }, 4), 2);
  // A duplicated delivery of an attempt that is already on the row loses nothing.
  assert.equal(newlyLostAttempts({ attempt: 3, status: 'processing', lost: 0 }, 3), 0);
});

test('lost attempts are not counted against a step budget: two worker deaths leave the model both its attempts', () => {
  const llm = PROFILES.llm.plan;
  const modelDown = new TransientError('the model answered 503', FAILURE_TYPES.llmUnavailable);
  // Attempt 3 after two lost ones is the model's first try: its failure is retried.
  assert.equal(decideRetry(modelDown, countedAttempt(3, 2), llm).retry, true);
  // Its second failure uses up the budget.
  assert.equal(decideRetry(modelDown, countedAttempt(4, 2), llm).retry, false);
  // Without the lost ones counted out, attempt 3 would have been past the budget.
  assert.equal(decideRetry(modelDown, 3, llm).retry, false);
  assert.equal(countedAttempt(2, 5), 1, 'never below the first attempt');
});

test('Temporal allows the lost attempts on top of each limited budget, and retries a lost one at once', () => {
  for (const [name, p] of Object.entries(PROFILES)) {
    const max = p.options.retry?.maximumAttempts;
    if (p.plan.maximumAttempts === 0) assert.equal(max, undefined, `${name}: unlimited stays unlimited`);
    else assert.equal(max, p.plan.maximumAttempts + LOST_ATTEMPTS_ALLOWED, name);
    assert.equal(p.options.retry?.initialInterval, '1 second', name);
  }
});

test('a live worker gives a hung attempt up before the start-to-close timeout: one heartbeat interval, a fifth of short timeouts', () => {
  assert.equal(giveUpAfterMs(120_000), 115_000);
  assert.equal(giveUpAfterMs(30_000), 25_000);
  assert.equal(giveUpAfterMs(4_000), 3_200);
});
