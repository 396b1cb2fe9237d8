import assert from 'node:assert/strict';
import { test } from 'node:test';
import { starterLimits } from '../../src/email/workflow-starter.temporal';
import { LLM_STEP_MARGIN_MS, PROFILES, llmStepTimeout } from '../../src/platform/activity-profiles.workflow';

test('a fleet-wide mail-io rate keeps the intake on the mail-io queue, where the server enforces it', () => {
  assert.deepEqual(starterLimits({ maxDrafts: 4, worker: { ratePerSecond: { mailIo: 0 } } }), { maxDrafts: 4, intakeOnQueue: false });
  assert.deepEqual(starterLimits({ maxDrafts: 4, worker: { ratePerSecond: { mailIo: 20 } } }), { maxDrafts: 4, intakeOnQueue: true });
});

test('LLM_TIMEOUT_MS travels with the input: the draft step’s timeout follows it (two model calls and a margin, never below 3 minutes)', () => {
  const limits = starterLimits({ llm: { timeoutMs: 300_000 }, worker: { ratePerSecond: { mailIo: 0 } } });
  assert.deepEqual(limits, { llmTimeoutMs: 300_000, intakeOnQueue: false });
  assert.equal(llmStepTimeout(limits.llmTimeoutMs), `${2 * 300_000 + LLM_STEP_MARGIN_MS} ms`);
  assert.equal(llmStepTimeout(5_000), `${3 * 60_000} ms`);
  // A run started before the input carried it keeps the profile's timeout.
  assert.equal(llmStepTimeout(undefined), PROFILES.llm.options.startToCloseTimeout);
});
