import assert from 'node:assert/strict';
import { test } from 'node:test';
import { starterLimits } from '../../src/email/workflow-starter.temporal';

test('a fleet-wide mail-io rate keeps the intake on the mail-io queue, where the server enforces it', () => {
  assert.deepEqual(starterLimits({ maxDrafts: 4, worker: { ratePerSecond: { mailIo: 0 } } }), { maxDrafts: 4, intakeOnQueue: false });
  assert.deepEqual(starterLimits({ maxDrafts: 4, worker: { ratePerSecond: { mailIo: 20 } } }), { maxDrafts: 4, intakeOnQueue: true });
});
