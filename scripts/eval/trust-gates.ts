/**
 * The figures of triage's trust gates, per set and its role (tuning: rules were written or
 * corrected while reading it; blind: no rule was changed after its results were read), for both
 * spam configurations: the built-in check alone, and with spamd (TRIAGE_SPAMD, as the worker asks it).
 *
 *   node --import tsx scripts/eval/trust-gates.ts [--spamd host:port] [--public] [--list]
 *
 * Spam: spam drafted x/N and ham held as spam y/M. Machine mail (bounces, auto-replies, no-reply
 * notices, reports): drafted x/N with every header, and with the headers stripped to the wording
 * (From replaced by a neutral address; Subject, the MIME headers and the body kept), which is what
 * src/triage/machine-wording.ts is for. Human mail held: the messages of those sets labelled
 * `human` and the customer mail, held by any class (none may be). `--public` adds the held-out side of the SpamAssassin
 * public corpus (about 2,000 messages; slow with spamd). Each set's role is written in its README.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadConfig } from '../../src/config';
import { parseRawEmail } from '../../src/email/intake/mail-parser';
import { errorMessage } from '../../src/platform/errors';
import { readSpamdSettings } from '../../src/triage/triage.config';
import { createSpamdScorer } from '../../src/triage/spam-scorer.spamd';
import type { SpamScorer } from '../../src/triage/spam-scorer.port';
import { triage, triageMessage, type TriageSettings } from '../../src/triage/triage';
import { customerMail, spamFiguresOf, type LabelledMessage } from '../spam-corpus';
import { corpusMessages } from '../spam-model/spam-assassin-corpus';

const FIXTURES = path.join(__dirname, '../../test/fixtures');

interface Labelled extends LabelledMessage {
  role: string;
}

/** labels.tsv rows: file, label, [role], note; the role column when the set has one, else `role`. */
function folder(dir: string, role: string): Labelled[] {
  return readFileSync(path.join(dir, 'labels.tsv'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#') && !l.startsWith('file\t'))
    .map((l) => {
      const [file = '', label = '', third = ''] = l.split('\t');
      const ownRole = third === 'tuning' || third === 'blind' ? third : role;
      return { id: file, label, role: ownRole, raw: readFileSync(path.join(dir, file)) };
    });
}

function subfolders(dir: string, role: string): Array<[string, Labelled[]]> {
  return readdirSync(dir)
    .sort()
    .filter((d) => existsSync(path.join(dir, d, 'labels.tsv')))
    .map((d) => [`${path.basename(dir)}/${d}`, folder(path.join(dir, d), role)]);
}

const KEEP = /^(subject|date|message-id|mime-version|content-type|content-transfer-encoding|to):/i;

/** The message with its headers stripped to the wording: a neutral sender, Subject and MIME headers, the body. */
export function wordingOnly(raw: Buffer): Buffer {
  const text = raw.toString('latin1');
  const blank = /\r?\n\r?\n/.exec(text);
  const head = blank ? text.slice(0, blank.index) : text;
  const body = blank ? text.slice(blank.index) : '';
  const fields = head.split(/\r?\n(?![ \t])/).filter((f) => KEEP.test(f));
  return Buffer.from(['From: Sender <sender@example.org>', ...fields].join('\r\n') + body, 'latin1');
}

async function machineDrafted(messages: Labelled[], settings: TriageSettings, strip: boolean, list: boolean) {
  let drafted = 0;
  let n = 0;
  for (const m of messages) {
    if (m.label === 'human') continue;
    n++;
    const raw = strip ? wordingOnly(m.raw) : m.raw;
    let outcome: string;
    try {
      const verdict = triage(triageMessage(await parseRawEmail(raw, m.id)), settings);
      outcome = verdict ? `${verdict.class}\t${verdict.reason}` : 'draft';
    } catch (err) {
      outcome = `unparseable\t${errorMessage(err).split('\n')[0]}`;
    }
    if (outcome === 'draft') drafted++;
    if (list) console.log(`  ${strip ? 'wording' : 'headers'}\t${m.label}\t${m.id}\t${outcome}`);
  }
  return `${drafted}/${n}`;
}

const byRole = (messages: Labelled[]) => {
  const roles = new Map<string, Labelled[]>();
  for (const m of messages) roles.set(m.role, [...(roles.get(m.role) ?? []), m]);
  return [...roles.entries()].sort();
};

async function spamSection(settings: TriageSettings, scorer: SpamScorer | undefined, publicCorpus: boolean, list: boolean) {
  const sets: Array<[string, Labelled[]]> = [
    ...subfolders(path.join(FIXTURES, 'spam-corpus'), 'tuning'),
    // Ham for the spam check: its rules were not written while reading these (their machine rules were).
    ...subfolders(path.join(FIXTURES, 'triage-corpus'), 'ham, not read for the spam rules'),
    ['customer mail (guard sets, labelled set)', (await customerMail()).map((m) => ({ ...m, role: 'tuning' }))],
  ];
  if (publicCorpus)
    sets.push([
      'spamassassin-public-corpus held-out side',
      corpusMessages('held-out').map((m) => ({ ...m, role: 'held out of the word list; figures read before' })),
    ]);
  const configs: Array<[string, SpamScorer | undefined]> = [['built-in only', undefined]];
  if (scorer) configs.push([`with ${scorer.describe}`, scorer]);
  for (const [config, asked] of configs) {
    console.log(`spam, ${config}:`);
    for (const [name, messages] of sets) {
      for (const [role, ofRole] of byRole(messages)) {
        const f = await spamFiguresOf(
          ofRole,
          settings,
          (file, label, outcome) => list && console.log(`  ${label}\t${name}/${file}\t${outcome}`),
          asked,
        );
        console.log(`  ${name} [${role}]: spam drafted ${f.spamDrafted.length}/${f.spam}, ham held ${f.hamHeld.length}/${f.ham}`);
      }
    }
  }
}

/** The labelled sets of machine mail (and the people's mail among them), each with its role. */
function machineSets(): Array<[string, Labelled[]]> {
  return [
    ...subfolders(path.join(FIXTURES, 'triage-corpus'), 'tuning'),
    ['triage-wording', folder(path.join(FIXTURES, 'triage-wording'), 'tuning')],
    ...subfolders(path.join(FIXTURES, 'machine-mail-blind'), 'blind'),
  ];
}

async function machineSection(sets: Array<[string, Labelled[]]>, settings: TriageSettings, list: boolean) {
  console.log('machine mail drafted (every label but human and spam):');
  for (const [name, messages] of sets) {
    // A folder of people's mail only (controls) has no machine-mail figure: the human section has it.
    const machine = messages.filter((m) => m.label !== 'spam' && m.label !== 'human');
    for (const [role, ofRole] of byRole(machine)) {
      const headers = await machineDrafted(ofRole, settings, false, list);
      const wording = await machineDrafted(ofRole, settings, true, list);
      console.log(`  ${name} [${role}]: drafted ${headers} with headers, ${wording} by wording alone (headers stripped)`);
    }
  }
}

/** Mail a person wrote held by any class (no draft): the labels `human` of the machine-mail sets, and the customer mail. */
async function humanSection(sets: Array<[string, Labelled[]]>, settings: TriageSettings, list: boolean) {
  console.log('human mail held (any class; labels human, and the customer mail):');
  const all: Array<[string, Labelled[]]> = [
    ...sets.map(([name, messages]): [string, Labelled[]] => [name, messages.filter((m) => m.label === 'human')]),
    ['customer mail (guard sets, labelled set)', (await customerMail()).map((m) => ({ ...m, label: 'human', role: 'tuning' }))],
  ];
  for (const [name, messages] of all) {
    for (const [role, ofRole] of byRole(messages)) {
      let held = 0;
      for (const m of ofRole) {
        const verdict = triage(triageMessage(await parseRawEmail(m.raw, m.id)), settings);
        if (verdict) held++;
        if (verdict && list) console.log(`  held\t${name}/${m.id}\t${verdict.class}\t${verdict.reason}`);
      }
      console.log(`  ${name} [${role}]: held ${held}/${ofRole.length}`);
    }
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const at = args.indexOf('--spamd');
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: process.env.DATABASE_URL ?? 'mysql://x:y@localhost/z' };
  if (at >= 0) env.TRIAGE_SPAMD = args[at + 1];
  const config = loadConfig(env, { imap: false });
  const problems: string[] = [];
  const spamd = readSpamdSettings(env, problems);
  if (problems.length) throw new Error(problems.join('\n'));
  const scorer = spamd ? createSpamdScorer({ ...spamd, timeoutMs: 60_000 }) : undefined;
  const list = args.includes('--list');
  await spamSection(config.triage, scorer, args.includes('--public'), list);
  const sets = machineSets();
  await machineSection(sets, config.triage, list);
  await humanSection(sets, config.triage, list);
}

if (require.main === module) void main();
