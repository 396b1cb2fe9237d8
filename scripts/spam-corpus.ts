/**
 * How intake triage treats labelled spam and ham: for each corpus folder with a `labels.tsv`
 * (`file`, `spam` | `ham` | a triage class | `human`, note), how many spam messages would still get a
 * draft and how many ham messages triage would hold as spam. A label other than `spam` is ham here:
 * a bounce or a person's mail must never be held as spam.
 *
 *   node --import tsx scripts/spam-corpus.ts <folder>... [--public] [--customer] [--list]
 *
 * A folder has a labels.tsv, or subfolders that have one; `--public` adds the held-out side of the
 * SpamAssassin public corpus (scripts/spam-model/spam-assassin-corpus.ts), which the learnt word
 * list never saw; `--customer` adds ordinary customer mail (customerMail below), all ham.
 *
 * TRIAGE_SPAM_SCORE, TRIAGE_SPAM_FILTER_TRUSTED and TRIAGE_SPAMD are read from the environment as the
 * worker reads them: with TRIAGE_SPAMD each message is also scored by that spamd.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { loadConfig } from '../src/config';
import { parseRawEmail } from '../src/email/intake/mail-parser';
import { errorMessage } from '../src/platform/errors';
import { triage, triageMessage, type TriageSettings } from '../src/triage/triage';
import type { SpamScorer } from '../src/triage/spam-scorer.port';
import { createSpamdScorer } from '../src/triage/spam-scorer.spamd';
import { GUARD_SET_NAMES, loadGuardSet } from './eval/guard-sets';
import { loadLabelledSet } from './eval/labelled-set';
import { corpusMessages } from './spam-model/spam-assassin-corpus';

export interface SpamFigures {
  spam: number;
  spamDrafted: string[];
  ham: number;
  hamHeld: string[];
}

function labels(dir: string): Array<{ file: string; label: string }> {
  return readFileSync(path.join(dir, 'labels.tsv'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => {
      const [file = '', label = ''] = l.split('\t');
      return { file, label };
    });
}

/** One labelled message: `spam`, or anything else (ham). */
export interface LabelledMessage {
  id: string;
  label: string;
  raw: Buffer;
}

/** The labelled messages of a folder with a labels.tsv. */
function folderMessages(dir: string): LabelledMessage[] {
  return labels(dir).map(({ file, label }) => ({ id: file, label, raw: readFileSync(path.join(dir, file)) }));
}

/** The figures of a set of labelled messages; `onEach` sees every message's outcome. */
export async function spamFiguresOf(
  messages: Iterable<LabelledMessage>,
  settings: TriageSettings,
  onEach: (file: string, label: string, outcome: string) => void = () => undefined,
  scorer?: SpamScorer,
): Promise<SpamFigures> {
  const out: SpamFigures = { spam: 0, spamDrafted: [], ham: 0, hamHeld: [] };
  for (const { id, label, raw } of messages) {
    let outcome: string;
    try {
      const asked = scorer ? await scorer.score(raw) : null;
      const filterScore = asked ? { filterScore: { score: asked.score, rules: asked.rules, by: scorer!.describe } } : {};
      const verdict = triage({ ...triageMessage(await parseRawEmail(raw, id)), ...filterScore }, settings);
      outcome = verdict ? `${verdict.class}\t${verdict.reason}` : 'draft';
    } catch (err) {
      outcome = `unparseable\t${errorMessage(err).split('\n')[0]}`;
    }
    onEach(id, label, outcome);
    if (label === 'spam') {
      out.spam++;
      if (outcome === 'draft') out.spamDrafted.push(id);
    } else {
      out.ham++;
      if (outcome.startsWith('spam\t')) out.hamHeld.push(id);
    }
  }
  return out;
}

/** The figures of one folder with a labels.tsv. */
export async function spamFigures(
  dir: string,
  settings: TriageSettings,
  onEach: (file: string, label: string, outcome: string) => void = () => undefined,
): Promise<SpamFigures> {
  return spamFiguresOf(folderMessages(dir), settings, onEach);
}

/**
 * Ordinary customer mail as a support mailbox receives it: the ordinary mails of the guard's sets
 * (the demo's and the bench's mail, the look-alike and held-out sets, a public benchmark's real
 * mails) and the questions of the labelled retrieval set, each wrapped in the headers a mail program
 * writes. All ham: none of them may be held as spam.
 */
export async function customerMail(): Promise<LabelledMessage[]> {
  const out: LabelledMessage[] = [];
  const wrap = (id: string, subject: string, body: string): LabelledMessage => ({
    id,
    label: 'ham',
    raw: Buffer.from(
      [
        'From: A Customer <customer@example.org>',
        'To: support@example.test',
        `Subject: ${subject.replace(/\s+/g, ' ')}`,
        'Date: Mon, 30 Nov 2026 10:00:00 +0000',
        `Message-ID: <${id.replace(/[^\w.-]/g, '-')}@example.org>`,
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: 8bit',
        '',
        body,
      ].join('\r\n'),
    ),
  });
  // The guard's ham sets are the SpamAssassin ham (mailing lists of 2002, hard ham too), no customer
  // mail: the spam filter is measured on all of that corpus on its own (spamFiguresOf of corpusMessages).
  for (const set of GUARD_SET_NAMES.filter((s) => !s.startsWith('ham-'))) {
    for (const m of await loadGuardSet(set)) {
      if (!m.attack) out.push(wrap(`guard-${set}/${m.id}`, m.subject, m.quoted ? `${m.body}\n\n${m.quoted}` : m.body));
    }
  }
  for (const q of loadLabelledSet().questions) out.push(wrap(`labelled/${q.id}`, q.subject, q.body));
  return out;
}

/** A folder with labels.tsv, or the folders below one that have it (`test/fixtures/spam-corpus`). */
function corpusFolders(arg: string): string[] {
  if (!statSync(arg).isDirectory()) return [];
  if (existsSync(path.join(arg, 'labels.tsv'))) return [arg];
  return readdirSync(arg)
    .sort()
    .map((d) => path.join(arg, d))
    .filter((d) => statSync(d).isDirectory() && existsSync(path.join(d, 'labels.tsv')));
}

const pct = (n: number, of: number) => (of === 0 ? '–' : `${((100 * n) / of).toFixed(1)} %`);

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const list = args.includes('--list');
  const publicCorpus = args.includes('--public');
  const customer = args.includes('--customer');
  const dirs = args.filter((a) => !a.startsWith('--')).flatMap(corpusFolders);
  if (dirs.length === 0 && !publicCorpus && !customer) {
    console.error('usage: node --import tsx scripts/spam-corpus.ts <folder-with-labels.tsv>... [--public] [--customer] [--list]');
    process.exit(2);
  }
  const config = loadConfig({ ...process.env, DATABASE_URL: process.env.DATABASE_URL ?? 'mysql://x:y@localhost/z' }, { imap: false });
  const total: SpamFigures = { spam: 0, spamDrafted: [], ham: 0, hamHeld: [] };
  const sets: Array<[string, Iterable<LabelledMessage>]> = dirs.map((dir) => [dir, folderMessages(dir)]);
  // The held-out side of the public corpus the learnt word list was trained on (never its training side).
  if (publicCorpus) sets.push(['spamassassin-public-corpus (held-out side)', corpusMessages('held-out')]);
  if (customer) sets.push(['customer mail (guard sets, labelled set)', await customerMail()]);
  // TRIAGE_SPAMD as the worker reads it: each message is scored by that spamd too.
  const scorer = config.spamd ? createSpamdScorer(config.spamd) : undefined;
  for (const [dir, messages] of sets) {
    const f = await spamFiguresOf(
      messages,
      config.triage,
      (file, label, outcome) => {
        if (list) console.log(`${label}\t${file}\t${outcome}`);
      },
      scorer,
    );
    console.log(
      `${dir}: spam drafted ${f.spamDrafted.length} of ${f.spam} (${pct(f.spamDrafted.length, f.spam)}), ham held as spam ${f.hamHeld.length} of ${f.ham} (${pct(f.hamHeld.length, f.ham)})`,
    );
    total.spam += f.spam;
    total.ham += f.ham;
    total.spamDrafted.push(...f.spamDrafted.map((x) => `${dir}/${x}`));
    total.hamHeld.push(...f.hamHeld.map((x) => `${dir}/${x}`));
  }
  console.log(
    `all: spam drafted ${total.spamDrafted.length} of ${total.spam} (${pct(total.spamDrafted.length, total.spam)}), ham held as spam ${total.hamHeld.length} of ${total.ham} (${pct(total.hamHeld.length, total.ham)})`,
  );
}

if (require.main === module) void main();
