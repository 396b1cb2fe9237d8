/** The autonomy policy file: defaults, every problem listed at once, the record's bars, AUTONOMY_FILE in the config. */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { autonomyActor, isAutomaticActor } from '../../src/drafting/drafting.contract';
import { AUTONOMY_EVENTS } from '../../src/autonomy/autonomy.contract';
import { AUTONOMY_DEFAULTS, categoryState, judgeRecord, parseAutonomyPolicy, policyLabel } from '../../src/autonomy/autonomy-policy';
import { loadConfig } from '../../src/config';

test('a minimal policy takes the defaults; defaults and a mailbox can set their own bars', () => {
  const p = parseAutonomyPolicy('policy: support\nversion: 1\nmailboxes:\n  default:\n    categories: [shipping]\n', 'test');
  assert.equal(policyLabel(p), 'support@1');
  assert.deepEqual(p.mailboxes.default, { mailboxId: 'default', categories: ['shipping'], ...AUTONOMY_DEFAULTS, neverAutomatic: [] });
  assert.deepEqual(AUTONOMY_DEFAULTS, { minReviewed: 50, recordSize: 200, minUnchangedShare: 0.9, graceMinutes: 10, minConfidence: 0.8 });
  const q = parseAutonomyPolicy(
    `policy: p
version: 2026-12
defaults: { minReviewed: 80, graceMinutes: 30 }
mailboxes:
  support: { categories: [a, b, a], minUnchangedShare: 0.98, neverAutomatic: [Garantie] }
  sales: { categories: [], minReviewed: 20 }
`,
    'test',
    ['support', 'sales'],
  );
  assert.deepEqual(q.mailboxes.support, {
    mailboxId: 'support',
    categories: ['a', 'b'],
    minReviewed: 80,
    recordSize: 200,
    minUnchangedShare: 0.98,
    graceMinutes: 30,
    minConfidence: 0.8,
    neverAutomatic: ['Garantie'],
  });
  assert.equal(q.mailboxes.sales?.minReviewed, 20);
  // A minimum above the record's size: the record grows to it, unless both were written.
  const big = parseAutonomyPolicy('policy: p\nversion: 1\nmailboxes: { default: { categories: [a], minReviewed: 300 } }', 't');
  assert.equal(big.mailboxes.default?.recordSize, 300);
  assert.throws(
    () => parseAutonomyPolicy('policy: p\nversion: 1\nmailboxes: { default: { categories: [a], minReviewed: 300, recordSize: 100 } }', 't'),
    /mailboxes\.default: recordSize \(100\) must be at least minReviewed \(300\)/,
  );
});

test('every problem of a policy file is listed in one error', () => {
  const bad = `policy: "has space"
version: [1]
colour: red
defaults: { minReviewed: 0, speed: 3 }
mailboxes:
  support: { categories: shipping, minUnchangedShare: 1.5, graceMinutes: 2.5, minConfidence: -1, extra: 1 }
  Sales!: { categories: [x] }
  ghost: { categories: [x] }
  empty: 3
`;
  assert.throws(
    () => parseAutonomyPolicy(bad, 'AUTONOMY_FILE a.yml', ['support', 'empty']),
    (err: Error & { code?: string }) => {
      assert.equal(err.code, 'CONFIG');
      for (const part of [
        'colour is not a known field (known: policy, version, defaults, mailboxes)',
        'policy must be a name',
        'version must be a number or a short word',
        'defaults.minReviewed must be a whole number from 1 to 10000, got 0',
        'defaults.speed is not a known field (known: minReviewed, recordSize, minUnchangedShare, graceMinutes, minConfidence)',
        'mailboxes.support.categories must be a list',
        'mailboxes.support.minUnchangedShare must be a number from 0 to 1, got 1.5',
        'mailboxes.support.graceMinutes must be a whole number from 1 to 1440, got 2.5',
        'mailboxes.support.minConfidence must be a number from 0 to 1, got -1',
        'mailboxes.support.extra is not a known field (known: categories, neverAutomatic, minReviewed',
        'mailboxes.Sales!: a mailbox id is lower-case letters, digits and -',
        'mailboxes.ghost: no such mailbox in the registry (known: support, empty)',
        'mailboxes.empty must be a mapping with categories',
      ])
        assert.ok(err.message.includes(part), `missing: ${part}\n${err.message}`);
      assert.match(err.message, /^AUTONOMY_FILE a\.yml: /);
      return true;
    },
  );
  assert.throws(() => parseAutonomyPolicy('policy: [', 'f'), /f is not valid YAML/);
  assert.throws(() => parseAutonomyPolicy('- a', 'f'), /f must be a mapping/);
});

test('a record qualifies only with enough reviewed drafts and the lower bound of its unchanged share over the bar', () => {
  const bars = { minReviewed: 50, minUnchangedShare: 0.9 };
  const qualifies = judgeRecord({ reviewed: 50, unchanged: 50 }, bars);
  assert.equal(qualifies.qualifies, true);
  assert.equal(qualifies.reason, null);
  assert.ok(Math.abs(qualifies.lower - 0.9287) < 0.0005 && qualifies.upper > 0.9999, JSON.stringify(qualifies));
  assert.equal(judgeRecord({ reviewed: 49, unchanged: 49 }, bars).reason, 'only 49 reviewed drafts, 50 needed');
  // 49 of 50 is 98 %, but a true rate under 90 % produces it too often.
  assert.equal(
    judgeRecord({ reviewed: 50, unchanged: 49 }, bars).reason,
    '49 of 50 approved unchanged (98.0 %; 95 % interval 89.5 %–99.6 %): the lower bound is below 90.0 %',
  );
  // The example: 19 of 20 passes a plain 95 % share, never a bound of 90 %.
  assert.equal(judgeRecord({ reviewed: 20, unchanged: 19 }, { minReviewed: 20, minUnchangedShare: 0.9 }).qualifies, false);
  assert.equal(judgeRecord({ reviewed: 200, unchanged: 194 }, { minReviewed: 50, minUnchangedShare: 0.9 }).qualifies, true);
  assert.equal(judgeRecord({ reviewed: 0, unchanged: 0 }, { minReviewed: 1, minUnchangedShare: 0 }).qualifies, false);
  const p = parseAutonomyPolicy('policy: p\nversion: 1\nmailboxes: { default: { categories: [a] } }', 't');
  assert.equal(categoryState(p, 'default', 'a', { reviewed: 50, unchanged: 50 }, true), 'qualifies');
  assert.equal(categoryState(p, 'default', 'a', { reviewed: 50, unchanged: 49 }, true), 'below_bar');
  assert.equal(categoryState(p, 'default', 'a', { reviewed: 50, unchanged: 50 }, false), 'switched_off');
  assert.equal(categoryState(p, 'default', 'a', { reviewed: 10, unchanged: 10 }, true), 'below_bar');
  assert.equal(categoryState(p, 'default', 'b', { reviewed: 50, unchanged: 50 }, true), 'not_listed');
  assert.equal(categoryState(null, 'default', 'a', { reviewed: 50, unchanged: 50 }, true), 'not_listed');
});

test('AUTONOMY_FILE: none is off everywhere, a valid file is loaded, problems join the configuration error', () => {
  assert.equal(loadConfig({}, { imap: false }).autonomy, null);
  const dir = mkdtempSync(path.join(tmpdir(), 'autonomy-'));
  const good = path.join(dir, 'good.yml');
  writeFileSync(good, 'policy: support\nversion: 4\nmailboxes:\n  default:\n    categories: [delivery]\n');
  assert.equal(policyLabel(loadConfig({ AUTONOMY_FILE: good }, { imap: false }).autonomy!), 'support@4');
  // A category the list lacks would never qualify: refused at start, with the list.
  const unknown = path.join(dir, 'unknown.yml');
  writeFileSync(unknown, 'policy: support\nversion: 4\nmailboxes:\n  default:\n    categories: [shipping]\n');
  assert.throws(
    () => loadConfig({ AUTONOMY_FILE: unknown }, { imap: false }),
    /AUTONOMY_FILE mailbox "default" names category "shipping", which is not in the category list \(billing, delivery/,
  );
  const bad = path.join(dir, 'bad.yml');
  writeFileSync(bad, 'policy: support\nversion: 4\nmailboxes:\n  nowhere:\n    categories: [shipping]\n');
  assert.throws(
    () => loadConfig({ AUTONOMY_FILE: bad, SMTP_FROM: 'not-an-address' }, { imap: false }),
    /SMTP_FROM is not an email address.*AUTONOMY_FILE .*bad\.yml: mailboxes\.nowhere: no such mailbox in the registry \(known: default\)/,
  );
  assert.throws(() => loadConfig({ AUTONOMY_FILE: path.join(dir, 'missing.yml') }, { imap: false }), /AUTONOMY_FILE cannot be read/);
});

test('the automatic actor and the event names operators filter on', () => {
  assert.equal(autonomyActor('support@4'), 'autonomy:support@4');
  assert.equal(isAutomaticActor('autonomy:support@4'), true);
  assert.equal(isAutomaticActor('anna'), false);
  assert.equal(isAutomaticActor(null), false);
  assert.deepEqual(Object.values(AUTONOMY_EVENTS), [
    'auto_send_pending',
    'auto_sent',
    'auto_send_skipped',
    'auto_send_withheld',
    'auto_send_stopped',
    'autonomy_switched',
    'autonomy_demoted',
    'autonomy_promoted',
  ]);
});
