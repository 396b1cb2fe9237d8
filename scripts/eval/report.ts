import type { RankFigures } from './metrics';
import type { EvalRun } from './run-eval';

const METHOD_LABEL = { words: 'words only', vectors: 'vectors only', hybrid: 'fused (RRF)' } as const;

const pct = (x: number) => `${(100 * x).toFixed(0)} %`.padStart(6);
const num = (x: number) => x.toFixed(3).padStart(5);
const rank = (f: RankFigures) => `${pct(f.recallAt1)} ${pct(f.recallAt3)} ${num(f.mrr)}`;

/** The eval as a table: one line per method and embedder. */
export function printTable(runs: EvalRun[], setInfo: string): void {
  const first = runs[0]?.figures;
  console.log(setInfo);
  if (first) {
    console.log(
      `answerable ${first.questions} (same language ${first.same.questions}, cross-language ${first.cross.questions}), ` +
        `no answer ${first.noAnswerQuestions}; recall@k and MRR over the ranked knowledge files\n`,
    );
  }
  const head =
    'method         embedder                   |    all: r@1    r@3   MRR |   same: r@1    r@3   MRR |  cross: r@1    r@3   MRR | drafts cite | not found | embed ms/passage  /question';
  console.log(head);
  console.log('-'.repeat(head.length));
  for (const r of runs) {
    const f = r.figures;
    const emb = r.embedding ? `${r.embedding.msPerPassage.toFixed(1).padStart(16)} ${r.embedding.msPerQuestion.toFixed(1).padStart(10)}` : `${'–'.padStart(16)} ${'–'.padStart(10)}`;
    console.log(
      `${METHOD_LABEL[r.method].padEnd(14)} ${(r.embedder ?? '–').padEnd(26)} | ${rank(f)} | ${rank(f.same)} | ${rank(f.cross)} |` +
        ` ${pct(f.draftsCitingExpected).padStart(11)} | ${pct(f.noAnswerNotFound).padStart(9)} | ${emb}`,
    );
  }
}

/** Per question: the expected file and what was ranked, for the misses of each run. */
export function printMisses(runs: EvalRun[]): void {
  for (const r of runs) {
    console.log(`\n${METHOD_LABEL[r.method]} ${r.embedder ?? ''}: questions whose expected file is not ranked first`);
    for (const o of r.outcomes) {
      if (o.expected === null ? o.draftNotFound : o.ranked[0] === o.expected) continue;
      console.log(`  ${o.id.padEnd(8)} ${o.pair.padEnd(5)} expected ${o.expected ?? 'none'}; ranked ${o.ranked.join(', ') || '(nothing)'}`);
    }
  }
}
