/**
 * Intake triage on labelled real mail from public mail-library test suites it was not written
 * against (test/fixtures/triage-corpus/README.md): no automatic mail gets a draft, every message a
 * person wrote does, every abuse complaint is a feedback report.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { parseRawEmail } from '../../src/email/intake/mail-parser';
import { TRIAGE_CLASSES } from '../../src/triage/triage-classes';
import { triage, triageMessage, type TriageSettings } from '../../src/triage/triage';

const ROOT = path.join(__dirname, '../fixtures/triage-corpus');
const SETTINGS: TriageSettings = { ownAddresses: ['support@example.test'], allow: [] };
const LABELS = new Set<string>([...TRIAGE_CLASSES, 'human']);

function labels(corpus: string): Array<{ file: string; expected: string }> {
  return readFileSync(path.join(ROOT, corpus, 'labels.tsv'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => {
      const [file, expected] = l.split('\t');
      return { file: file!, expected: expected! };
    });
}

function emlFiles(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? emlFiles(dir, path.join(prefix, e.name)) : e.name.endsWith('.eml') ? [path.join(prefix, e.name)] : [],
  );
}

for (const corpus of ['sisimai-set-of-emails', 'flanker', 'parsedmarc']) {
  test(`${corpus}: automatic mail gets no draft, mail a person wrote does, abuse complaints are feedback reports`, async () => {
    const dir = path.join(ROOT, corpus);
    const labelled = labels(corpus);
    assert.deepEqual(labelled.map((l) => l.file).sort(), emlFiles(dir).sort(), 'every message has a label, every label a message');
    const drafted: string[] = [];
    const missedHuman: string[] = [];
    const counts: Record<string, number> = {};
    for (const { file, expected } of labelled) {
      assert.ok(LABELS.has(expected), `${file}: unknown label ${expected}`);
      const verdict = triage(triageMessage(await parseRawEmail(readFileSync(path.join(dir, file)), file)), SETTINGS);
      const got = verdict?.class ?? 'human';
      counts[got] = (counts[got] ?? 0) + 1;
      if (expected === 'human' && verdict) missedHuman.push(`${file}: ${verdict.class} (${verdict.reason})`);
      if (expected !== 'human' && !verdict) drafted.push(file);
      if (expected === 'feedback_report') assert.equal(got, 'feedback_report', `${file}: ${verdict?.reason ?? 'drafted'}`);
    }
    assert.deepEqual(drafted, [], 'automatic mail that would get a draft');
    assert.deepEqual(missedHuman, [], 'mail a person wrote that would get no draft');
    const human = labelled.filter((l) => l.expected === 'human').length;
    assert.equal(counts.human ?? 0, human);
  });
}
