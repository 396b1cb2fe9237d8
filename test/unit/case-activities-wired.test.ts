/**
 * The case workflow names its activities by an interface of its own (src/cases/case.workflow.ts);
 * the worker's activities must satisfy it, or the workflow would call activities no worker has.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Activities } from '../../activities';
import type { CaseActivities } from '../../src/cases/case.workflow';

/** A type error here is the failure: an activity of the case workflow is missing or differs. */
const wired = (a: Activities): CaseActivities => a;

test('the worker registers every activity the case workflow calls, with its signature', () => {
  assert.equal(typeof wired, 'function');
});
