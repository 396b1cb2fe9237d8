/**
 * The eval's figures as pure functions: which knowledge files a retrieval ranked, recall@k, mean
 * reciprocal rank, and whether a draft cited the expected file. Kept apart from the harness so they
 * are unit-tested without a database or an embedder.
 */

/** The knowledge file of a source id `knowledge:<path>#<n>`, or null for any other source. */
export function fileOfSource(sourceId: string): string | null {
  const m = /^knowledge:(.+)#\d+$/.exec(sourceId);
  return m ? m[1]! : null;
}

/**
 * The knowledge files in the order retrieval ranked their passages, each once (its best passage
 * counts): the eval asks whether the right file was found, not which of its passages.
 */
export function rankedFiles(items: ReadonlyArray<{ sourceId: string; kind: string }>): string[] {
  const files: string[] = [];
  for (const item of items) {
    if (item.kind !== 'knowledge') continue;
    const file = fileOfSource(item.sourceId);
    if (file !== null && !files.includes(file)) files.push(file);
  }
  return files;
}

/** 1 when `expected` is among the first k ranked files, else 0. */
export function hitAt(ranked: readonly string[], expected: string, k: number): number {
  return ranked.slice(0, k).includes(expected) ? 1 : 0;
}

/** 1 / (rank of `expected`), 0 when it was not retrieved at all. */
export function reciprocalRank(ranked: readonly string[], expected: string): number {
  const i = ranked.indexOf(expected);
  return i < 0 ? 0 : 1 / (i + 1);
}

/** A draft cites the file when one of its used sources is a passage of it. */
export function citesFile(usedSourceIds: readonly string[], file: string): boolean {
  return usedSourceIds.some((id) => fileOfSource(id) === file);
}

/** `same`: question and answer share a language; `cross`: they do not; `none`: nothing answers it. */
export type LanguagePair = 'same' | 'cross' | 'none';

export function languagePair(questionLang: string, answerLang: string | null): LanguagePair {
  if (answerLang === null) return 'none';
  return questionLang === answerLang ? 'same' : 'cross';
}

/** What one question gave with one method. */
export interface QuestionOutcome {
  id: string;
  pair: LanguagePair;
  /** The expected file, null for a question nothing answers. */
  expected: string | null;
  ranked: string[];
  /** The offline draft's used source ids and whether it said nothing relevant was found. */
  draftSources: string[];
  draftNotFound: boolean;
}

export interface RankFigures {
  questions: number;
  recallAt1: number;
  recallAt3: number;
  mrr: number;
  /** Share of answerable questions whose draft cites the expected file. */
  draftsCitingExpected: number;
}

export interface MethodFigures extends RankFigures {
  same: RankFigures;
  cross: RankFigures;
  /** Share of unanswerable questions whose draft says nothing relevant was found. */
  noAnswerNotFound: number;
  noAnswerQuestions: number;
}

const mean = (xs: number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

export function rankFigures(outcomes: readonly QuestionOutcome[]): RankFigures {
  const answerable = outcomes.filter((o) => o.expected !== null);
  return {
    questions: answerable.length,
    recallAt1: mean(answerable.map((o) => hitAt(o.ranked, o.expected!, 1))),
    recallAt3: mean(answerable.map((o) => hitAt(o.ranked, o.expected!, 3))),
    mrr: mean(answerable.map((o) => reciprocalRank(o.ranked, o.expected!))),
    draftsCitingExpected: mean(answerable.map((o) => (citesFile(o.draftSources, o.expected!) ? 1 : 0))),
  };
}

export function methodFigures(outcomes: readonly QuestionOutcome[]): MethodFigures {
  const none = outcomes.filter((o) => o.expected === null);
  return {
    ...rankFigures(outcomes),
    same: rankFigures(outcomes.filter((o) => o.pair === 'same')),
    cross: rankFigures(outcomes.filter((o) => o.pair === 'cross')),
    noAnswerNotFound: mean(none.map((o) => (o.draftNotFound ? 1 : 0))),
    noAnswerQuestions: none.length,
  };
}
