/**
 * The floor of the blind machine-mail set (test/fixtures/machine-mail-blind/, PyPI `bounced`'s
 * test data): with every header no more machine mail is drafted than measured (2 of 76 in each
 * half), its one mail a person wrote is drafted, and its English out-of-office notice is held by
 * wording alone once the headers are stripped. The figures themselves: scripts/eval/trust-gates.ts.
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

test("blind machine mail: at most 2 of 76 drafted in each half, the person's mail drafted", async () => {
  assert.equal(rows.length, 153);
  for (const role of ['tuning', 'blind']) {
    const machine = rows.filter((r) => r.role === role && r.expected !== 'human');
    assert.equal(machine.length, 76, role);
    let drafted = 0;
    for (const r of machine) if (!(await verdict(readFileSync(path.join(DIR, r.file)), r.file))) drafted++;
    assert.ok(drafted <= 2, `${role}: ${drafted} of 76 drafted`);
  }
  for (const r of rows.filter((x) => x.expected === 'human'))
    assert.equal(await verdict(readFileSync(path.join(DIR, r.file)), r.file), null, r.file);
});

test('an English out-of-office notice is held by its wording alone, its headers stripped', async () => {
  const file = 'bounce-email-non_bounces-tt_1234210666.eml';
  const v = await verdict(wordingOnly(readFileSync(path.join(DIR, file))), file);
  assert.equal(v?.class, 'auto_reply');
});
