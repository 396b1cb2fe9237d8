/**
 * A named replay beside the live record: off unless the policy names runs, validated at start,
 * capped by the live record's size, never counted toward the minimum, and said in the reason.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { categoryState, judgeRecord, parseAutonomyPolicy } from '../../src/autonomy/autonomy-policy';
import { describeReplay, replayAllowance, type ReplayEvidence } from '../../src/autonomy/replay-evidence';

const RUN = '20250605-1a2b3c4d';
const bars = { minReviewed: 50, minUnchangedShare: 0.9 };

/** Replay evidence of one usable run: `reviewed` pairs counted, `unchanged` of them unchanged. */
function evidence(reviewed: number, unchanged: number, more: Partial<ReplayEvidence> = {}): ReplayEvidence {
  return { runs: [{ runId: RUN, problem: null }], available: reviewed, reviewed, unchanged, allowed: reviewed, ...more };
}

test('replay counts only when a mailbox names its runs; the cap defaults to the live record and is at most 1', () => {
  const off = parseAutonomyPolicy('policy: p\nversion: 1\nmailboxes: { default: { categories: [a] } }', 't');
  assert.equal(off.mailboxes.default?.countReplay, undefined);
  assert.equal('countReplay' in off.mailboxes.default!, false, 'the default: no replay counts');
  const one = parseAutonomyPolicy(`policy: p\nversion: 1\nmailboxes: { default: { categories: [a], countReplay: ${RUN} } }`, 't');
  assert.deepEqual(one.mailboxes.default?.countReplay, { runs: [RUN], cap: 1 });
  const two = parseAutonomyPolicy(
    `policy: p\nversion: 1\nmailboxes: { default: { categories: [a], countReplay: [${RUN}, 20250701-00ff00ff, ${RUN}], replayCap: 0.25 } }`,
    't',
  );
  assert.deepEqual(two.mailboxes.default?.countReplay, { runs: [RUN, '20250701-00ff00ff'], cap: 0.25 });
  // `countReplay: false` is the default spelled out.
  const spelled = parseAutonomyPolicy('policy: p\nversion: 1\nmailboxes: { default: { categories: [a], countReplay: false } }', 't');
  assert.equal(spelled.mailboxes.default?.countReplay, undefined);
});

test('every problem of the replay fields is listed with the others at start', () => {
  const bad = `policy: p
version: 1
defaults: { countReplay: ${RUN} }
mailboxes:
  default: { categories: [a], countReplay: ["has space", 3], replayCap: 1.5 }
  other: { categories: [a], replayCap: 0.5 }
  empty: { categories: [a], countReplay: [] }
`;
  assert.throws(
    () => parseAutonomyPolicy(bad, 'AUTONOMY_FILE a.yml'),
    (err: Error) => {
      for (const part of [
        'defaults.countReplay',
        'mailboxes.default.countReplay[0] must be a replay run id',
        'mailboxes.default.countReplay[1] must be a replay run id',
        'mailboxes.default.replayCap must be a number from 0 to 1',
        'mailboxes.other.replayCap needs countReplay',
        'mailboxes.empty.countReplay must name at least one replay run',
      ])
        assert.ok(err.message.includes(part), `${part} in: ${err.message}`);
      return true;
    },
  );
});

test('the cap: replay pairs per live decision, never more than the live record', () => {
  assert.equal(replayAllowance(50, { runs: [RUN], cap: 1 }), 50);
  assert.equal(replayAllowance(50, { runs: [RUN], cap: 0.5 }), 25);
  assert.equal(replayAllowance(3, { runs: [RUN], cap: 0.5 }), 1);
  assert.equal(replayAllowance(0, { runs: [RUN], cap: 1 }), 0, 'no live record: a replay adds nothing');
  assert.equal(replayAllowance(200, { runs: [RUN], cap: 0 }), 0);
});

test('counted replay pairs join the share and its interval, and the reason shows the split', () => {
  // 49 of 50 alone: the lower bound 89.5 % is below the bar.
  assert.equal(judgeRecord({ reviewed: 50, unchanged: 49 }, bars).qualifies, false);
  // With 50 of 50 from the replay: 99 of 100, lower bound 94.6 %.
  const lifted = judgeRecord({ reviewed: 50, unchanged: 49 }, bars, evidence(50, 50));
  assert.equal(lifted.qualifies, true);
  assert.deepEqual(lifted.counted, { reviewed: 100, unchanged: 99 });
  assert.ok(Math.abs(lifted.lower - 0.946) < 0.0005, String(lifted.lower));
  assert.equal(
    lifted.evidence,
    `live 49 of 50 approved unchanged; replay ${RUN}: 50 of 50 unchanged; together 99 of 100 (99.0 %; 95 % interval 94.6 %–99.8 %)`,
  );
  // A replay that went worse pulls the bound down: 45 of 50 live and 44 of 50 replayed fail together.
  const pulled = judgeRecord({ reviewed: 50, unchanged: 50 }, bars, evidence(50, 44));
  assert.equal(pulled.qualifies, false);
  assert.equal(
    pulled.reason,
    `live 50 of 50 approved unchanged; replay ${RUN}: 44 of 50 unchanged; together 94 of 100 (94.0 %; 95 % interval 87.5 %–97.2 %): the lower bound is below 90.0 %`,
  );
  // Without replay evidence nothing changes: the reason is the record's, no split.
  const plain = judgeRecord({ reviewed: 50, unchanged: 50 }, bars);
  assert.equal(plain.evidence, null);
  assert.deepEqual(plain.counted, { reviewed: 50, unchanged: 50 });
});

test('replay never counts toward the minimum of reviewed drafts: people must have reviewed that many', () => {
  const j = judgeRecord({ reviewed: 30, unchanged: 30 }, bars, evidence(30, 30));
  assert.equal(j.qualifies, false);
  assert.equal(j.reason, 'only 30 reviewed drafts, 50 needed (replay pairs do not count toward it)');
  const p = parseAutonomyPolicy(`policy: p\nversion: 1\nmailboxes: { default: { categories: [a], countReplay: ${RUN} } }`, 't');
  assert.equal(categoryState(p, 'default', 'a', { reviewed: 50, unchanged: 49 }, true), 'below_bar');
  assert.equal(categoryState(p, 'default', 'a', { reviewed: 50, unchanged: 49 }, true, evidence(50, 50)), 'qualifies');
  assert.equal(categoryState(p, 'default', 'a', { reviewed: 30, unchanged: 30 }, true, evidence(30, 30)), 'below_bar');
});

test('a named run that counted nothing says why; a capped replay says how many of its pairs counted', () => {
  const missing: ReplayEvidence = {
    runs: [
      { runId: RUN, problem: 'not_found' },
      { runId: '20250701-00ff00ff', problem: 'other_mailbox' },
      { runId: '20250702-abcdabcd', problem: 'unfinished' },
    ],
    available: 0,
    reviewed: 0,
    unchanged: 0,
    allowed: 50,
  };
  assert.equal(
    describeReplay(missing),
    `replay run ${RUN} not found (never made, or deleted): counts nothing; replay run 20250701-00ff00ff is a replay of another mailbox: counts nothing; replay run 20250702-abcdabcd has not finished: counts nothing yet`,
  );
  const j = judgeRecord({ reviewed: 50, unchanged: 49 }, bars, missing);
  assert.equal(j.qualifies, false);
  assert.match(j.reason ?? '', /^live 49 of 50 approved unchanged; replay run 20250605-1a2b3c4d not found .*together 49 of 50 \(98\.0 %/);
  assert.equal(
    describeReplay(evidence(40, 38, { available: 120, allowed: 40 })),
    `replay ${RUN}: 38 of 40 unchanged (40 of 120 pairs, cap 40)`,
  );
});
