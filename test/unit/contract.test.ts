import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FAILURE_TYPES, httpFailureType, isLlmFailure, LLM_FAILURE_TYPES } from '../../src/platform/contract';
import {
  DRAFT_IN_MAKING_STATUSES,
  EMAIL_STATUSES,
  ENDED_STATUSES,
  NEEDS_PERSON_STATUSES,
  needsPerson,
  sendIsDone,
  SEND_STATUSES,
  UNFINISHED_STATUSES,
  WAITING_FOR_TEAM_STATUSES,
} from '../../src/email/email-status';
import { QUEUE_STATUSES } from '../../src/platform/job-queue';
import { classifyHttpStatus } from '../../src/platform/http-errors';
import { EmailRagError } from '../../src/platform/errors';

test('the status lists keep their words and order', () => {
  assert.deepEqual(EMAIL_STATUSES, [
    'fetched',
    'parsed',
    'indexed',
    'partially_indexed',
    'drafted',
    'awaiting_approval',
    'approved',
    'sent',
    'rejected',
    'manual_review',
    'failed',
    'ignored',
    'answered_elsewhere',
    'shadowed',
  ]);
  assert.deepEqual(QUEUE_STATUSES, ['pending', 'processing', 'done', 'failed', 'dead']);
  assert.deepEqual(SEND_STATUSES, ['pending', 'sending', 'sent', 'failed', 'in_doubt', 'bounced']);
});

test('the derived status sets split the email statuses without overlap', () => {
  assert.deepEqual(NEEDS_PERSON_STATUSES, ['awaiting_approval', 'manual_review']);
  assert.deepEqual(ENDED_STATUSES, ['sent', 'rejected', 'failed', 'ignored', 'answered_elsewhere']);
  assert.deepEqual(UNFINISHED_STATUSES, ['fetched', 'parsed', 'indexed', 'partially_indexed', 'drafted', 'approved']);
  assert.deepEqual(WAITING_FOR_TEAM_STATUSES, ['shadowed']);
  const all = [...UNFINISHED_STATUSES, ...NEEDS_PERSON_STATUSES, ...ENDED_STATUSES, ...WAITING_FOR_TEAM_STATUSES];
  assert.equal(new Set(all).size, EMAIL_STATUSES.length);
  assert.deepEqual([...all].sort(), [...EMAIL_STATUSES].sort());
  assert.deepEqual(DRAFT_IN_MAKING_STATUSES, [
    'new',
    'fetched',
    'parsed',
    'indexed',
    'partially_indexed',
    'drafted',
    'awaiting_approval',
    'manual_review',
    'shadowed',
  ]);
});

test('needsPerson and sendIsDone answer from the sets', () => {
  assert.deepEqual(
    EMAIL_STATUSES.filter((s) => needsPerson(s)),
    ['awaiting_approval', 'manual_review'],
  );
  assert.deepEqual(
    SEND_STATUSES.filter((s) => sendIsDone(s)),
    ['sent', 'bounced'],
  );
});

test('failure types are unique', () => {
  const values = Object.values(FAILURE_TYPES);
  assert.equal(new Set(values).size, values.length);
});

test('an LLM failure is known by its type: the LLM codes and its HTTP answers', () => {
  for (const type of LLM_FAILURE_TYPES) assert.ok(isLlmFailure(type), type);
  assert.ok(isLlmFailure(httpFailureType('llm', 401)));
  assert.equal(httpFailureType('llm', 401), 'LLM_HTTP_401');
  const e = classifyHttpStatus('llm', 400, 'bad request');
  assert.ok(e instanceof EmailRagError && isLlmFailure(e.code), 'the drafter’s HTTP failure carries an LLM type');
  for (const type of [FAILURE_TYPES.messageGone, FAILURE_TYPES.noReplyAddress, httpFailureType('embedding', 401), undefined, null, '']) {
    assert.equal(isLlmFailure(type), false, String(type));
  }
  // The same verdict the workflow's earlier test on the failure's `type` prefix gave, for every declared type.
  for (const type of Object.values(FAILURE_TYPES)) assert.equal(isLlmFailure(type), /^LLM_/.test(type), type);
});
