/**
 * How intake triage treats labelled spam and ham: for each corpus folder with a `labels.tsv`
 * (`file`, `spam` | `ham` | a triage class | `human`, note), how many spam messages would still get a
 * draft and how many ham messages triage would hold as spam. A label other than `spam` is ham here:
 * a bounce or a person's mail must never be held as spam.
 *
 *   node --import tsx scripts/spam-corpus.ts <folder>... [--list]   (a folder with labels.tsv, or one whose subfolders have it)
 *
 * TRIAGE_SPAM_SCORE and TRIAGE_SPAM_FILTER_TRUSTED are read from the environment as the worker reads them.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { loadConfig } from '../src/config';
import { parseRawEmail } from '../src/email/mail-parser';
import { errorMessage } from '../src/platform/errors';
import { triage, triageMessage, type TriageSettings } from '../src/triage/triage';

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

/** The figures of one folder; `onEach` sees every message's outcome. */
export async function spamFigures(
  dir: string,
  settings: TriageSettings,
  onEach: (file: string, label: string, outcome: string) => void = () => undefined,
): Promise<SpamFigures> {
  const out: SpamFigures = { spam: 0, spamDrafted: [], ham: 0, hamHeld: [] };
  for (const { file, label } of labels(dir)) {
    let outcome: string;
    try {
      const verdict = triage(triageMessage(await parseRawEmail(readFileSync(path.join(dir, file)), file)), settings);
      outcome = verdict ? `${verdict.class}\t${verdict.reason}` : 'draft';
    } catch (err) {
      outcome = `unparseable\t${errorMessage(err).split('\n')[0]}`;
    }
    onEach(file, label, outcome);
    if (label === 'spam') {
      out.spam++;
      if (outcome === 'draft') out.spamDrafted.push(file);
    } else {
      out.ham++;
      if (outcome.startsWith('spam\t')) out.hamHeld.push(file);
    }
  }
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
  const dirs = args.filter((a) => a !== '--list').flatMap(corpusFolders);
  if (dirs.length === 0) {
    console.error('usage: node --import tsx scripts/spam-corpus.ts <folder-with-labels.tsv>... [--list]');
    process.exit(2);
  }
  const config = loadConfig({ ...process.env, DATABASE_URL: process.env.DATABASE_URL ?? 'mysql://x:y@localhost/z' }, { imap: false });
  const total: SpamFigures = { spam: 0, spamDrafted: [], ham: 0, hamHeld: [] };
  for (const dir of dirs) {
    const f = await spamFigures(dir, config.triage, (file, label, outcome) => {
      if (list) console.log(`${label}\t${file}\t${outcome}`);
    });
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
