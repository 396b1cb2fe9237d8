/**
 * The masking figures: personal tokens left and ordinary words masked on the held-out set, the
 * development set and the 1.3 sample; ordinary words masked in support prose without personal data
 * (the knowledge files); the words masked in the demo mails, listed for a person to judge; the
 * time per reply. `node --import tsx scripts/eval/masking.ts`
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { maskPersonalData } from '../../src/retrieval/mask-personal-data';
import { DEV_REPLIES } from '../../test/fixtures/masking/dev-replies';
import { HELD_OUT_REPLIES } from '../../test/fixtures/masking/held-out-replies';
import { HELD_OUT_REPLIES_2 } from '../../test/fixtures/masking/held-out-replies-2';
import { HELD_OUT_REPLIES_3 } from '../../test/fixtures/masking/held-out-replies-3';
import { HELD_OUT_REPLIES_4 } from '../../test/fixtures/masking/held-out-replies-4';
import { PUBLIC_US_ADDRESS_REPLIES } from '../../test/fixtures/masking/public-us-addresses';
import { REPLY_SAMPLE } from '../../test/fixtures/masking/reply-sample';
import { describe, maskedWords, measureMasking, words } from '../../test/support/masking-measure';

const root = path.resolve(__dirname, '../..');

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full, ext) : ext.test(name) ? [full] : [];
  });
}

/** The plain-text body of a demo mail: what follows the first blank line of its text/plain part. */
function mailBody(raw: string): string {
  const part =
    raw.split(/Content-Type: text\/plain[^\n]*\n/)[1] ??
    raw
      .split(/\r?\n\r?\n/)
      .slice(1)
      .join('\n\n');
  return part.split(/\n------=|\n--[A-Za-z0-9_=-]+--?\n/)[0]!.replace(/^[\s\S]*?\n\n/, '');
}

function corpus(name: string, texts: string[]): void {
  const masked = texts.flatMap((t) => maskedWords(t, maskPersonalData(t))).filter((w) => /\p{L}/u.test(w));
  const total = texts.reduce((n, t) => n + words(t).filter((w) => /\p{L}/u.test(w)).length, 0);
  console.log(`${name}: ${masked.length} of ${total} words (with a letter) masked: ${masked.join(', ') || 'none'}`);
}

// The first call builds the gazetteer: its cost once per process.
const loadStarted = process.hrtime.bigint();
maskPersonalData('Hallo Anna,');
const loadMs = Number(process.hrtime.bigint() - loadStarted) / 1e6;

const sample = REPLY_SAMPLE.map((s) => ({
  region: s.lang,
  theirMail: s.theirMail,
  reply: s.reply,
  personal: s.personal.map(([, t]) => ['name', t] as ['name', string]),
}));
for (const [name, set] of [
  ['held-out', HELD_OUT_REPLIES],
  ['held-out 2', HELD_OUT_REPLIES_2],
  ['held-out 3', HELD_OUT_REPLIES_3],
  ['held-out 4', HELD_OUT_REPLIES_4],
  ['public US addresses (held out)', PUBLIC_US_ADDRESS_REPLIES],
  ['development', DEV_REPLIES],
  ['1.3 sample', sample],
] as const) {
  console.log(describe(`${name}, patterns alone`, measureMasking(set, false)));
  console.log(describe(`${name}, with what is known`, measureMasking(set, true)));
}

const knowledge = [...files(path.join(root, 'test/eval/knowledge'), /\.md$/), ...files(path.join(root, 'scripts/demo-knowledge'), /\.md$/)];
corpus(
  `knowledge files (${knowledge.length}, no personal data)`,
  knowledge.map((f) => readFileSync(f, 'utf8')),
);
const mails = files(path.join(root, 'scripts/demo-mails'), /\.eml$/);
corpus(
  `demo mail bodies (${mails.length}, senders' names and signatures are personal)`,
  mails.map((f) => mailBody(readFileSync(f, 'utf8'))),
);

const questions = (parse(readFileSync(path.join(root, 'test/eval/questions.yaml'), 'utf8')) as { questions: Array<{ body: string }> })
  .questions;
corpus(
  `customer mails of the retrieval set (${questions.length}, a few signed with a name)`,
  questions.map((q) => q.body),
);

const all = [...HELD_OUT_REPLIES, ...DEV_REPLIES].map((r) => r.reply);
const rounds = 20;
const started = process.hrtime.bigint();
for (let i = 0; i < rounds; i++) for (const t of all) maskPersonalData(t);
const perReply = Number(process.hrtime.bigint() - started) / 1e6 / (rounds * all.length);
console.log(
  `time: ${perReply.toFixed(3)} ms per reply (${all.length} replies, ${rounds} rounds); ` +
    `building the gazetteer on the first call: ${loadMs.toFixed(0)} ms`,
);
