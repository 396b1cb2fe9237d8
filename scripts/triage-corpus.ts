/**
 * How intake triage would sort a folder of real mail: parses every file with the product's
 * parser and prints how many messages fall in each class and how many would still get a draft.
 *
 *   node --import tsx scripts/triage-corpus.ts <dir> [--list]
 *
 * SMTP_FROM, OWN_ADDRESSES and TRIAGE_ALLOW are read from the environment as the worker reads them.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { parseRawEmail } from '../src/email/intake/mail-parser';
import { TRIAGE_CLASSES } from '../src/triage/triage-classes';
import { errorMessage } from '../src/platform/errors';
import { parseOwnAddresses, parseTriageAllow, triage, triageMessage } from '../src/triage/triage';

function files(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = path.join(dir, name);
      const st = statSync(p);
      if (st.isDirectory()) return files(p);
      // A corpus folder's licence, README and labels are no mail.
      return st.isFile() && !name.startsWith('.') && !/^(LICENSE|README)|\.(md|tsv)$/.test(name) ? [p] : [];
    });
}

async function main(): Promise<void> {
  const [dir, ...flags] = process.argv.slice(2);
  if (!dir) {
    console.error('usage: node --import tsx scripts/triage-corpus.ts <dir-of-eml-files> [--list]');
    process.exit(2);
  }
  const from = /<([^>]+)>/.exec(process.env.SMTP_FROM ?? '')?.[1] ?? process.env.SMTP_FROM ?? 'assistant@localhost';
  const own = parseOwnAddresses(process.env.OWN_ADDRESSES);
  const allow = parseTriageAllow(process.env.TRIAGE_ALLOW);
  if (own.problems.length + allow.problems.length > 0) {
    console.error([...own.problems, ...allow.problems].join('\n'));
    process.exit(2);
  }
  const settings = { ownAddresses: [from.toLowerCase(), ...own.addresses], allow: allow.rules };
  const counts = new Map<string, number>([...TRIAGE_CLASSES.map((c): [string, number] => [c, 0]), ['draft', 0], ['unparseable', 0]]);
  const list = flags.includes('--list');
  const all = files(dir);
  for (const file of all) {
    const rel = path.relative(dir, file);
    try {
      const parsed = await parseRawEmail(readFileSync(file), rel);
      const verdict = triage(triageMessage(parsed), settings);
      const key = verdict?.class ?? 'draft';
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if (list) console.log(`${key}\t${rel}\t${verdict?.reason ?? ''}`);
    } catch (err) {
      counts.set('unparseable', (counts.get('unparseable') ?? 0) + 1);
      if (list) console.log(`unparseable\t${rel}\t${errorMessage(err).split('\n')[0]}`);
    }
  }
  console.log(`${all.length} files in ${dir}`);
  for (const [key, n] of counts) console.log(`${key.padEnd(16)} ${String(n).padStart(5)}`);
  console.log(`would get a draft: ${counts.get('draft')} of ${all.length - (counts.get('unparseable') ?? 0)} parsed messages`);
}

void main();
