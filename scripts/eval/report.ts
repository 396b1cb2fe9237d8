import type { RankFigures } from './metrics';
import type { EvalRun } from './run-eval';

const METHOD_LABEL = { words: 'words only', vectors: 'vectors only', hybrid: 'fused (RRF)' } as const;

const pct = (x: number, w = 6) => `${(100 * x).toFixed(0)} %`.padStart(w);
const num = (x: number) => x.toFixed(3).padStart(5);
const ms = (x: number | undefined, w: number) => (x === undefined ? '–' : x.toFixed(1)).padStart(w);
const who = (r: EvalRun, width: number) => `${METHOD_LABEL[r.method].padEnd(13)} ${(r.embedder ?? '–').padEnd(width)}`;
const ranks = (f: RankFigures) => `${pct(f.recallAt1)} ${pct(f.recallAt3)} ${num(f.mrr)} ${pct(f.draftsCitingExpected, 7)}`;

function print(head: string, lines: string[]): void {
  console.log(head);
  console.log('-'.repeat(head.length));
  for (const l of lines) console.log(l);
  console.log('');
}

/** The eval as two tables: all questions, then same-language against cross-language ones. */
export function printTable(runs: EvalRun[], setInfo: string): void {
  const embedderWidth = Math.max(8, ...runs.map((r) => (r.embedder ?? '').length));
  const first = runs[0]?.figures;
  console.log(setInfo);
  if (first) {
    console.log(
      `answerable ${first.questions} (same language ${first.same.questions}, cross-language ${first.cross.questions}), no answer ` +
        `${first.noAnswerQuestions}. r@k and MRR over the ranked knowledge files; "cite": offline drafts citing the expected ` +
        'file; "not found": no-answer questions the draft calls not found.\n',
    );
  }
  print(
    `${'method'.padEnd(13)} ${'embedder'.padEnd(embedderWidth)}    r@1    r@3   MRR    cite  not found  embed ms/passage  ms/question`,
    runs.map(
      (r) =>
        `${who(r, embedderWidth)} ${ranks(r.figures)} ${pct(r.figures.noAnswerNotFound, 10)} ${ms(r.embedding?.msPerPassage, 17)} ${ms(r.embedding?.msPerQuestion, 12)}`,
    ),
  );
  print(
    `${'method'.padEnd(13)} ${'embedder'.padEnd(embedderWidth)} | same: r@1    r@3   MRR    cite | cross: r@1    r@3   MRR    cite`,
    runs.map((r) => `${who(r, embedderWidth)} |   ${ranks(r.figures.same)} |    ${ranks(r.figures.cross)}`),
  );
}

const share = (n: number, of: number) => `${n}/${of}`.padStart(7) + (of === 0 ? '      –' : pct(n / of, 7));

const perDraft = (n: number, drafts: number) => (drafts === 0 ? '–' : (n / drafts).toFixed(1)).padStart(6);

/** Claim-level grounding of the offline drafts, and the planted faults the check caught. */
export function printGrounding(runs: EvalRun[]): void {
  const embedderWidth = Math.max(8, ...runs.map((r) => (r.embedder ?? '').length));
  console.log(
    "grounding: the offline drafts' factual sentences checked against their context (supported, unsupported, tied to a passage " +
      "that does not support it); planted faults: an invented amount tied to the cited passage, each quote tied to another file's passage; " +
      'texts the checks asked to embed per draft (its own check and the two planted), and those the vector memory sent to the embedder.\n',
  );
  print(
    `${'method'.padEnd(13)} ${'embedder'.padEnd(embedderWidth)}  claims      supported    unsupported       mis-tied |   invented caught | re-tied: mis-tied    caught | embedded per draft: asked, sent`,
    runs.map((r) => {
      const g = r.grounding;
      return `${who(r, embedderWidth)} ${String(g.claims).padStart(7)} ${share(g.supported, g.claims)} ${share(g.unsupported, g.claims)} ${share(g.misTied, g.claims)} | ${share(g.inventedCaught, g.inventedPlanted)} | ${share(g.misTieMisTied, g.misTiePlanted)} ${share(g.misTieCaught, g.misTiePlanted)} | ${perDraft(g.embedding.asked, g.drafts)}, ${perDraft(g.embedding.sent, g.drafts)}`;
    }),
  );
}

/** Per question: the expected file and what was ranked, for the misses of each run. */
export function printMisses(runs: EvalRun[]): void {
  for (const r of runs) {
    console.log(`${METHOD_LABEL[r.method]} ${r.embedder ?? ''}: questions whose expected file is not ranked first`);
    for (const o of r.outcomes) {
      if (o.expected === null ? o.draftNotFound : o.ranked[0] === o.expected) continue;
      console.log(`  ${o.id.padEnd(8)} ${o.pair.padEnd(5)} expected ${o.expected ?? 'none'}; ranked ${o.ranked.join(', ') || '(nothing)'}`);
    }
    console.log('');
  }
}
