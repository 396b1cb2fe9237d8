/**
 * The floor of PyPI `bounced`'s test data (test/fixtures/machine-mail-blind/bounced/, a tuning set
 * since 2026-12-07: its blind half's two drafted messages were read and rules written for them):
 * with every header none of its 152 machine messages is drafted, its one mail a person wrote is,
 * and its English out-of-office notice is held by wording alone once the headers are stripped. The figures themselves: scripts/eval/trust-gates.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseRawEmail } from '../../src/email/intake/mail-parser';
import { triage, triageMessage } from '../../src/triage/triage';
import { wordingOnly } from '../../scripts/eval/trust-gates';

const DIR = path.join(__dirname, '../fixtures/machine-mail-blind/bounced');
const SETTINGS = { ownAddresses: ['support@example.test'], allow: [] };
const rows = readFileSync(path.join(DIR, 'labels.tsv'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() && !l.startsWith('#'))
  .map((l) => {
    const [file = '', expected = '', role = ''] = l.split('\t');
    return { file, expected, role };
  });

const verdict = async (raw: Buffer, id: string) => triage(triageMessage(await parseRawEmail(raw, id)), SETTINGS);

test("PyPI bounced's machine mail: none of 152 drafted, the person's mail drafted", async () => {
  assert.equal(rows.length, 153);
  const machine = rows.filter((r) => r.expected !== 'human');
  assert.equal(machine.length, 152);
  assert.ok(
    rows.every((r) => r.role === 'tuning'),
    'tuning since 2026-12-07 (README.md)',
  );
  const drafted: string[] = [];
  for (const r of machine) if (!(await verdict(readFileSync(path.join(DIR, r.file)), r.file))) drafted.push(r.file);
  assert.deepEqual(drafted, []);
  for (const r of rows.filter((x) => x.expected === 'human'))
    assert.equal(await verdict(readFileSync(path.join(DIR, r.file)), r.file), null, r.file);
});

test("a gateway's short notice that quotes the subject, and a bulk mailing's VERP return path, are not drafted", async () => {
  const gateway = await verdict(readFileSync(path.join(DIR, 'flufl-simple_20.eml')), 'flufl-simple_20.eml');
  assert.equal(gateway?.class, 'bounce');
  assert.match(gateway!.reason, /short delivery-failure notice/);
  const file = 'bounce-email-non_bounces-tt_1234241664.eml';
  const bulk = await verdict(readFileSync(path.join(DIR, file)), file);
  assert.equal(bulk?.class, 'list');
  assert.match(bulk!.reason, /VERP/);
});

test('an English out-of-office notice is held by its wording alone, its headers stripped', async () => {
  const file = 'bounce-email-non_bounces-tt_1234210666.eml';
  const v = await verdict(wordingOnly(readFileSync(path.join(DIR, file))), file);
  assert.equal(v?.class, 'auto_reply');
});
