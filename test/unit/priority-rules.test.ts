import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config';
import { agedPriorityKey, effectivePriority, parsePriorityRules } from '../../src/triage/priority';

const rules = parsePriorityRules(
  'critical:sender=ceo@example.com;high:domain=bigcustomer.example;high:keyword=dringend;low:keyword=newsletter',
).rules;

test('sender, domain and keyword rules raise priority; headers and rules take the more urgent', () => {
  assert.equal(effectivePriority('normal', { from: 'CEO@example.com', subject: 'Hallo' }, rules), 'critical');
  assert.equal(effectivePriority('normal', { from: 'a@eu.bigcustomer.example', subject: 'Frage' }, rules), 'high');
  assert.equal(effectivePriority('normal', { from: 'x@y.z', subject: 'DRINGEND: Server down' }, rules), 'high');
  assert.equal(effectivePriority('normal', { from: 'x@y.z', subject: 'Unser Newsletter' }, rules), 'low');
  assert.equal(
    effectivePriority('high', { from: 'x@y.z', subject: 'Newsletter' }, rules),
    'high',
    'a rule does not lower what headers raised',
  );
  assert.equal(effectivePriority('normal', { from: null, subject: 'undringend' }, rules), 'normal', 'whole words only');
});

test('bad rules are configuration errors', () => {
  assert.deepEqual(parsePriorityRules('').rules, []);
  assert.equal(parsePriorityRules('urgent:sender=x@y.z').problems.length, 1);
  assert.throws(
    () => loadConfig({ IMAP_USER: 'u', IMAP_PASSWORD: 'p', PRIORITY_RULES: 'high:subject=x' }),
    /PRIORITY_RULES entry "high:subject=x"/,
  );
});

test('aging raises the priority key one level per step waited, never above critical', () => {
  const step = 600_000;
  assert.equal(agedPriorityKey(3, 0, step), 3);
  assert.equal(agedPriorityKey(3, step - 1, step), 3);
  assert.equal(agedPriorityKey(3, step, step), 2);
  assert.equal(agedPriorityKey(4, 5 * step, step), 1);
});
