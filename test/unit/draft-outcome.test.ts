/** What an approval says about a draft, the acceptance rates per group, and the window syntax. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config';
import { DRAFT_OUTCOMES } from '../../src/drafting/drafting.contract';
import { changedShare, classifyApproval, wordCount } from '../../src/drafting/draft-outcome';
import { openingLines, summariseOutcomes } from '../../src/operations/draft-quality';
import { parseWindow } from '../../src/platform/time-window';

const draft = (body: string, drafter = 'openai') => ({ body, drafter });
const ten = 'eins zwei drei vier fünf sechs sieben acht neun zehn';

test('approved as drafted, or with only whitespace changed, is unchanged', () => {
  assert.deepEqual(classifyApproval(draft(ten), undefined), { outcome: 'approved_unchanged', editDistance: 0, changedShare: 0 });
  assert.equal(classifyApproval(draft(ten), `${ten.replace(/ /g, '\n')}\n`).outcome, 'approved_unchanged');
});

test('the share is distance / max(words before, words after); under 40 % is light, from 40 % heavy', () => {
  // 3 of 10 words replaced: 30 %.
  const three = classifyApproval(draft(ten), 'eins zwei drei vier fünf sechs sieben X Y Z');
  assert.deepEqual(three, { outcome: 'light_edit', editDistance: 3, changedShare: 0.3 });
  // 4 of 10: exactly 40 %, heavy.
  assert.equal(classifyApproval(draft(ten), 'eins zwei drei vier fünf sechs W X Y Z').outcome, 'heavy_edit');
  // 10 words appended to 10: distance 10 over the longer text of 20 words = 50 %.
  const appended = classifyApproval(draft(ten), `${ten} ${ten}`);
  assert.equal(appended.changedShare, 0.5);
  assert.equal(appended.outcome, 'heavy_edit');
  // Everything deleted but one word: 9 of 10.
  assert.equal(changedShare(9, ten, 'eins'), 0.9);
  assert.equal(changedShare(0, '', ''), 0);
  assert.equal(wordCount('  a\n\tb  c '), 3);
});

test('a reply a person wrote is written_by_person, however it was approved', () => {
  assert.equal(classifyApproval(draft('Ich schreibe selbst.', 'human'), 'Ich schreibe selbst.').outcome, 'written_by_person');
  assert.equal(classifyApproval(draft('Ich schreibe selbst.', 'human'), undefined).outcome, 'written_by_person');
});

test('acceptance rates per group: counts, shares, accepted = unchanged + light; largest group first', () => {
  const r = summariseOutcomes(
    [
      { group: 'billing', outcome: 'approved_unchanged', count: 6 },
      { group: 'billing', outcome: 'light_edit', count: 2 },
      { group: 'billing', outcome: 'rejected', count: 2 },
      { group: 'delivery', outcome: 'heavy_edit', count: 1 },
      { group: 'delivery', outcome: 'redrafted', count: 1 },
      { group: 'access', outcome: 'written_by_person', count: 2 },
    ],
    new Date('2026-11-01T00:00:00Z'),
    'category',
  );
  assert.deepEqual(
    r.groups.map((g) => [g.group, g.decided, g.accepted]),
    [
      ['billing', 10, 0.8],
      ['access', 2, 0],
      ['delivery', 2, 0],
    ],
  );
  assert.equal(r.groups[0]!.shares.approved_unchanged, 0.6);
  assert.deepEqual(Object.keys(r.total.counts), [...DRAFT_OUTCOMES]);
  assert.equal(r.total.decided, 14);
  assert.equal(r.total.accepted, 0.571);
  assert.equal(r.since, '2026-11-01T00:00:00.000Z');
});

test('--since takes days, hours or minutes', () => {
  const now = new Date('2026-12-01T12:00:00Z');
  assert.equal(parseWindow('30d', now).toISOString(), '2026-11-01T12:00:00.000Z');
  assert.equal(parseWindow('12h', now).toISOString(), '2026-12-01T00:00:00.000Z');
  assert.equal(parseWindow('90m', now).toISOString(), '2026-12-01T10:30:00.000Z');
  assert.equal(parseWindow('7', now).toISOString(), '2026-11-24T12:00:00.000Z');
  assert.throws(() => parseWindow('a month', now), /30d/);
  assert.throws(() => parseWindow('0d', now), /30d/);
});

test('the opening of a mail leaves quotes and empty lines out', () => {
  assert.equal(openingLines('Hallo,\n\nwo ist mein Paket?\n> alte Antwort\n>> noch älter\nDanke'), 'Hallo, wo ist mein Paket? Danke');
});

test('GAP_SIMILARITY: a share above 0 and at most 1, 0.47 by default', () => {
  const env = { DATABASE_URL: 'mariadb://root@127.0.0.1:3306/x' };
  assert.equal(loadConfig(env, { imap: false }).quality.gapSimilarity, 0.47);
  assert.equal(loadConfig({ ...env, GAP_SIMILARITY: '0.8' }, { imap: false }).quality.gapSimilarity, 0.8);
  assert.throws(
    () => loadConfig({ ...env, GAP_SIMILARITY: '1.5' }, { imap: false }),
    /GAP_SIMILARITY must be a number above 0 and at most 1/,
  );
});
