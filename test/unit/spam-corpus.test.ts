/**
 * The spam checks on labelled real mail from public test suites (test/fixtures/spam-corpus/README.md)
 * and on the mail of the triage corpus (every label but spam is ham there): a floor on a fixed
 * labelled set, deterministic, never a timing. Ham held as spam at most 1 %; spam that still gets a
 * draft at most the share measured when the built-in check was written (docs/pipeline.md, "Spam"),
 * so that a change which lets more spam through, or holds a person's mail, fails here.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { TriageSettings } from '../../src/triage/triage';
import { spamFigures, type SpamFigures } from '../../scripts/spam-corpus';

const FIXTURES = path.join(__dirname, '../fixtures');
const SPAM = ['spamassassin', 'rspamd', 'spamscope', 'php-mime-mail-parser'].map((d) => path.join(FIXTURES, 'spam-corpus', d));
const TRIAGE = ['flanker', 'sisimai-set-of-emails', 'parsedmarc'].map((d) => path.join(FIXTURES, 'triage-corpus', d));
const SETTINGS: TriageSettings = { ownAddresses: ['support@example.test'], allow: [] };

/** At most this share of ham is held as spam. */
const HAM_HELD_MAX = 0.01;
/**
 * At most this share of spam gets a draft. The goal is 0.10; the built-in check lets 16 of 29
 * (55.2 %) through on this set today, and this floor keeps it from getting worse until a trained
 * model replaces the hand-set signs (docs/pipeline.md says what is missing).
 */
const SPAM_DRAFTED_MAX = 0.56;

function files(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? files(dir, path.join(prefix, e.name))
      : /^(LICENSE|NOTICE|README)|\.tsv$/.test(e.name)
        ? []
        : [path.join(prefix, e.name)],
  );
}

test('every message of the spam corpus has a label and every label a message', async () => {
  for (const dir of SPAM) {
    const labelled: string[] = [];
    await spamFigures(dir, SETTINGS, (file, label) => {
      assert.ok(label === 'spam' || label === 'ham', `${file}: label ${label}`);
      labelled.push(file);
    });
    assert.deepEqual(labelled.sort(), files(dir).sort(), dir);
  }
});

test(`spam drafted ≤ ${SPAM_DRAFTED_MAX * 100} %, ham held as spam ≤ ${HAM_HELD_MAX * 100} % on the labelled public mail`, async () => {
  const total: SpamFigures = { spam: 0, spamDrafted: [], ham: 0, hamHeld: [] };
  for (const dir of [...SPAM, ...TRIAGE]) {
    const f = await spamFigures(dir, SETTINGS);
    total.spam += f.spam;
    total.ham += f.ham;
    total.spamDrafted.push(...f.spamDrafted.map((x) => `${path.basename(dir)}/${x}`));
    total.hamHeld.push(...f.hamHeld.map((x) => `${path.basename(dir)}/${x}`));
  }
  assert.ok(total.spam >= 25 && total.ham >= 150, `a set worth measuring: ${total.spam} spam, ${total.ham} ham`);
  assert.ok(total.hamHeld.length <= HAM_HELD_MAX * total.ham, `ham held as spam: ${total.hamHeld.join(', ')}`);
  assert.ok(
    total.spamDrafted.length <= SPAM_DRAFTED_MAX * total.spam,
    `spam drafted: ${total.spamDrafted.length} of ${total.spam}: ${total.spamDrafted.join(', ')}`,
  );
});
