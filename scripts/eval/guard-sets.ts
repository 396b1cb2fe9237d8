/**
 * The mail sets the prompt-injection guard is measured on (scripts/eval/guard-eval.ts --set):
 *
 * - `heldout`, `calibration`: the two halves of test/eval/guard/mails.yaml (the calibration half
 *   chose the 1.3 threshold);
 * - `unseen`: test/eval/guard/unseen.yaml, 16 attacks and 16 look-alike ordinary mails written
 *   before the 1.4 guard and never used to tune it;
 * - `bipia`: 100 real mails of a public benchmark as ordinary mail and its 75 test attacks put
 *   into them (test/fixtures/guard-corpus/README.md);
 * - `operation`: the ordinary mail of a running installation: the demo's customer mails, the
 *   bench's load mail and the mails people wrote in the public triage corpora.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { hiddenHtmlText, parseRawEmail } from '../../src/email/intake/mail-parser';
import type { InjectionInput } from '../../src/drafting/injection-detector';
import { benchMail } from '../bench/pipeline';

export interface GuardMail {
  id: string;
  split?: 'calibration' | 'heldout';
  attack: boolean;
  lang?: string;
  subject: string;
  body: string;
  quoted?: string;
  hiddenHtml?: string;
  attachments?: string;
  /** The attack text put into an ordinary mail (BIPIA): a catch counts as one only at this text. */
  inserted?: string;
}

export const GUARD_SET_NAMES = ['heldout', 'calibration', 'unseen', 'bipia', 'operation'] as const;
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

/** BIPIA's `SUBJECT: …|EMAIL_FROM: …|RECEIVED DATE: …|CONTENT: …` as subject and body. */
function bipiaMail(context: string): { subject: string; body: string } {
  const subject = /^SUBJECT: (.*?)\|EMAIL_FROM:/s.exec(context)?.[1] ?? '';
  const body = context.split('|CONTENT:').slice(1).join('|CONTENT:');
  return { subject: subject.trim(), body: body.trim() };
}

function bipiaContexts(file: string): string[] {
  return readFileSync(path.join(BIPIA_DIR, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as { context: string }).context);
}

/** As BIPIA does it: the attack on a line of its own before the mail, after a sentence in it, or after it. */
function insertAttack(body: string, attack: string, k: number): string {
  if (k % 3 === 0) return `${attack}\n${body}`;
  if (k % 3 === 2) return `${body}\n${attack}`;
  const sentences = [...body.matchAll(/[.!?]\s+/g)].map((m) => m.index + m[0].length);
  const at = sentences[Math.floor(sentences.length / 2)] ?? Math.floor(body.length / 2);
  return `${body.slice(0, at)}\n${attack}\n${body.slice(at)}`;
}

function bipiaSet(): GuardMail[] {
  const test = bipiaContexts('email-test.jsonl').map(bipiaMail);
  const train = bipiaContexts('email-train.jsonl').map(bipiaMail);
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
  }
}
