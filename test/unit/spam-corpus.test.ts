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
import { customerMail, spamFigures, spamFiguresOf, type SpamFigures } from '../../scripts/spam-corpus';
import { corpusMessages } from '../../scripts/spam-model/spam-assassin-corpus';

const FIXTURES = path.join(__dirname, '../fixtures');
const SPAM = ['spamassassin', 'rspamd', 'spamscope', 'php-mime-mail-parser'].map((d) => path.join(FIXTURES, 'spam-corpus', d));
const TRIAGE = ['flanker', 'sisimai-set-of-emails', 'parsedmarc'].map((d) => path.join(FIXTURES, 'triage-corpus', d));
const SETTINGS: TriageSettings = { ownAddresses: ['support@example.test'], allow: [] };

/** At most this share of ham is held as spam. */
const HAM_HELD_MAX = 0.01;
/**
 * At most this share of spam gets a draft. The goal is 0.10 (with a spam filter's verdict; the
 * built-in check alone does not reach it): the built-in check with the learnt word list lets 13 of
 * 29 (44.8 %) through on this set, and this floor keeps it from getting worse (docs/pipeline.md).
 */
const SPAM_DRAFTED_MAX = 0.45;
/**
 * On the held-out side of the public corpus the word list was learnt from (1,396 spam, 1,525 ham
 * never seen in training): 326 drafted (23.4 %), 15 held (1.0 %, all commercial mail of its "hard
 * ham"). Before the learnt list: 804 (57.6 %) and 38 (2.5 %).
 */
const PUBLIC_SPAM_DRAFTED_MAX = 0.24;
const PUBLIC_HAM_HELD_MAX = 0.01;

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

test(`the held-out side of the public corpus: spam drafted ≤ ${PUBLIC_SPAM_DRAFTED_MAX * 100} %, ham held ≤ ${PUBLIC_HAM_HELD_MAX * 100} %`, async () => {
  const f = await spamFiguresOf(corpusMessages('held-out'), SETTINGS);
  assert.ok(f.spam >= 1000 && f.ham >= 1000, `a set worth measuring: ${f.spam} spam, ${f.ham} ham`);
  assert.ok(f.hamHeld.length <= PUBLIC_HAM_HELD_MAX * f.ham, `ham held as spam: ${f.hamHeld.length} of ${f.ham}: ${f.hamHeld.join(', ')}`);
  assert.ok(f.spamDrafted.length <= PUBLIC_SPAM_DRAFTED_MAX * f.spam, `spam drafted: ${f.spamDrafted.length} of ${f.spam}`);
});

test('no ordinary customer mail is held as spam (the guard sets and the labelled questions)', async () => {
  const f = await spamFiguresOf(await customerMail(), SETTINGS);
  assert.ok(f.ham >= 200, `a set worth measuring: ${f.ham}`);
  assert.deepEqual(f.hamHeld, []);
});
