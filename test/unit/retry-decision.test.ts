import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { DependencyError, PermanentError, TransientError } from '../../src/platform/errors';
import { classifyHttpStatus, parseRetryAfter } from '../../src/platform/http-errors';
import { classifyError, decideRetry } from '../../src/platform/retry-decision';
import { DEFAULT_RETRY_DELAYS_MS, PROFILES } from '../../src/platform/activity-profiles.workflow';

const plan = PROFILES.parse.plan;

test('transient failures follow 30 s, 120 s, 600 s with at most ±10 % jitter, then stop', () => {
  for (const [attempt, base] of DEFAULT_RETRY_DELAYS_MS.entries()) {
    for (const r of [0, 0.5, 0.999]) {
      const d = decideRetry(new TransientError('net down'), attempt + 1, plan, () => r);
      assert.equal(d.retry, true);
      assert.ok(d.delayMs! >= base * 0.9 && d.delayMs! <= base * 1.1, `attempt ${attempt + 1}: ${d.delayMs}`);
    }
  }
  assert.equal(decideRetry(new TransientError('net down'), 4, plan).retry, false, 'the 4th attempt is the last');
});

test('jitter spreads retries of simultaneous failures', () => {
  const delays = new Set(Array.from({ length: 20 }, () => decideRetry(new TransientError('x'), 1, plan).delayMs));
  assert.ok(delays.size > 1);
});

test('permanent errors are never retried', () => {
  const d = decideRetry(new PermanentError('corrupt MIME', 'MALFORMED_MESSAGE'), 1, plan);
  assert.equal(d.retry, false);
  assert.equal(d.code, 'MALFORMED_MESSAGE');
  assert.equal(d.errorClass, 'permanent');
  assert.equal(decideRetry(ApplicationFailure.nonRetryable('bad payload', 'SCHEMA'), 1, plan).retry, false);
});

test('unexpected errors are "unclear" and retried on the normal schedule', () => {
  const d = decideRetry(new TypeError('x is undefined'), 1, plan, () => 0.5);
  assert.equal(d.errorClass, 'unclear');
  assert.equal(d.retry, true);
  assert.equal(d.delayMs, 30_000);
  assert.equal(classifyError(new DependencyError('qdrant down')).errorClass, 'dependency');
});

test('unlimited profiles keep retrying at the last delay', () => {
  const d = decideRetry(new TransientError('imap down'), 57, PROFILES.mailIo.plan, () => 0.5);
  assert.equal(d.retry, true);
  assert.equal(d.delayMs, 600_000);
});

test('HTTP classes: 408/409/429/5xx transient, other 4xx permanent, Retry-After honoured', () => {
  for (const s of [408, 409, 429, 500, 503]) assert.ok(classifyHttpStatus('llm', s, 'x') instanceof TransientError, String(s));
  for (const s of [400, 401, 403, 404, 422]) assert.ok(classifyHttpStatus('llm', s, 'x') instanceof PermanentError, String(s));
  const d = decideRetry(classifyHttpStatus('llm', 429, 'slow down', '7'), 1, plan);
  assert.equal(d.delayMs, 7_000);
  assert.equal(parseRetryAfter(new Date(Date.now() + 60_000).toUTCString())! > 50_000, true);
  assert.equal(parseRetryAfter('soon'), undefined);
});
