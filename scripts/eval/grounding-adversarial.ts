/**
 * The adversarial grounding set (test/eval/grounding-adversarial/, see its README): customer mails
 * that assert a commitment nobody made ("as agreed on the phone you will refund 480 EUR by
 * Friday"), and honest mails. Each drafter's draft goes through the draft step's own grounding
 * check (src/email/draft/draft-grounding.ts: every sentence but courtesy, the customer's mail
 * grounding restatements only). A draft is held when a sentence is unsupported, mis-tied or
 * customer-asserted: it would wait for a person whatever its category's record says.
 *
 * Drafters: `double`, a scripted LLM double that writes each case's `draft` (it repeats what the
 * customer asserted; for honest mails it restates the question and answers from the knowledge);
 * `offline`, the product's offline drafter; `llama`, the product's OpenAI drafter against the real
 * llama.cpp server with SmolLM2-135M (only where `npm run setup:llm` has set it up).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { createOfflineDrafter } from '../../src/drafting/drafter.offline';
import { createOpenAiDrafter } from '../../src/drafting/drafter.openai';
import type { DraftContextItem, Drafter, DraftResult } from '../../src/drafting/drafter.port';
import { GROUNDING_VERDICTS } from '../../src/drafting/drafting.contract';
import { needsPerson } from '../../src/drafting/grounding-check';
import { draftGrounding } from '../../src/email/draft/draft-grounding';
// Test support starts the server the way the real-server tests do (scripts/bench.ts does the same).
import { startLlamaServer } from '../../test/support/services/llama-server';
import type { Embedder } from '../../src/retrieval/embedder.port';

export const ADVERSARIAL_SET_DIR = path.join(__dirname, '../../test/eval/grounding-adversarial');
/** Drafts that repeat the customer's question as a question, and questions that carry a commitment (its README). */
export const QUESTION_SET_DIR = path.join(__dirname, '../../test/eval/grounding-questions');

export interface AdversarialCase {
  id: string;
  kind: 'asserted' | 'honest';
  lang: 'de' | 'en';
  subject: string;
  mail: string;
  context: string[];
  draft: string;
}

interface Passage {
  id: string;
  title: string;
  text: string;
}

export interface AdversarialSet {
  cases: AdversarialCase[];
  knowledge: Map<string, Passage>;
}

export function loadAdversarialSet(dir = ADVERSARIAL_SET_DIR): AdversarialSet {
  const cases = parse(readFileSync(path.join(dir, 'cases.yaml'), 'utf8')) as AdversarialCase[];
  // A set without passages of its own uses the adversarial set's.
  const own = path.join(dir, 'knowledge.yaml');
  const passages = parse(readFileSync(existsSync(own) ? own : path.join(ADVERSARIAL_SET_DIR, 'knowledge.yaml'), 'utf8')) as Passage[];
  const knowledge = new Map(passages.map((p) => [p.id, p]));
  for (const c of cases) {
    if (c.kind !== 'asserted' && c.kind !== 'honest') throw new Error(`case ${c.id}: kind is asserted or honest, not ${String(c.kind)}`);
    for (const id of c.context) if (!knowledge.has(id)) throw new Error(`case ${c.id}: no passage ${id} in knowledge.yaml`);
  }
  return { cases, knowledge };
}

export interface CaseVerdict {
  id: string;
  kind: AdversarialCase['kind'];
  held: boolean;
  /** Sentences called customer-asserted. */
  customerAsserted: number;
  /** The drafter wrote nothing (a failed model): held by the empty-draft rule, not by grounding. */
  empty: boolean;
  /** The first sentence that holds the draft, with its verdict. */
  why: string | null;
}

export interface DrafterFigures {
  drafter: string;
  assertedHeld: number;
  asserted: number;
  assertedAsCustomer: number;
  honestHeld: number;
  honest: number;
  empty: number;
  verdicts: CaseVerdict[];
}

const contextOf = (set: AdversarialSet, c: AdversarialCase): DraftContextItem[] =>
  c.context.map((id) => {
    const p = set.knowledge.get(id)!;
    return { sourceId: p.id, kind: 'knowledge' as const, title: p.title, text: p.text };
  });

/** The scripted LLM double: it writes the case's draft, citing nothing. */
export const scriptedDouble = (cases: readonly AdversarialCase[]): Drafter => ({
  name: 'double',
  draft: (req) => {
    const c = cases.find((x) => `adv-${x.id}` === req.emailId)!;
    return Promise.resolve({
      subject: `Re: ${c.subject}`,
      body: c.draft,
      language: c.lang,
      confidence: 0.9,
      model: 'llm-double',
      promptVersion: 'double',
      flags: [],
      claims: [],
      category: 'unclassified',
      prioritySuggestion: 'normal',
      usedSourceIds: [],
    } satisfies DraftResult);
  },
});

export async function judgeCase(
  set: AdversarialSet,
  c: AdversarialCase,
  drafter: Drafter,
  embedder: Embedder | undefined,
): Promise<CaseVerdict> {
  const emailId = `adv-${c.id}`;
  const context = contextOf(set, c);
  const drafted = await drafter.draft({
    emailId,
    from: { name: 'Kunde', address: 'kunde@example.test' },
    subject: c.subject,
    text: c.mail,
    context,
    language: c.lang,
  });
  const empty = drafted.body.trim() === '';
  const g = await draftGrounding(embedder ? { embedder } : {}, { id: emailId, subject: c.subject, text: c.mail }, context, drafted);
  const holding = g.sentences.filter((s) => needsPerson(s.verdict));
  const asCustomer = g.sentences.filter((s) => s.verdict === GROUNDING_VERDICTS.customerAsserted).length;
  return {
    id: c.id,
    kind: c.kind,
    held: holding.length > 0,
    customerAsserted: asCustomer,
    empty,
    why: holding[0] ? `${holding[0].verdict}: ${holding[0].text.slice(0, 90)}` : null,
  };
}

export async function runDrafter(set: AdversarialSet, drafter: Drafter, embedder?: Embedder): Promise<DrafterFigures> {
  const verdicts: CaseVerdict[] = [];
  for (const c of set.cases) verdicts.push(await judgeCase(set, c, drafter, embedder));
  const of = (kind: AdversarialCase['kind']) => verdicts.filter((v) => v.kind === kind);
  return {
    drafter: drafter.name,
    asserted: of('asserted').length,
    assertedHeld: of('asserted').filter((v) => v.held).length,
    assertedAsCustomer: of('asserted').filter((v) => v.customerAsserted > 0).length,
    honest: of('honest').length,
    honestHeld: of('honest').filter((v) => v.held).length,
    empty: verdicts.filter((v) => v.empty).length,
    verdicts,
  };
}

/** The double and the offline drafter always; the llama.cpp server when asked for and set up. */
export async function runAdversarialSet(opts: { llm: boolean; dir?: string; embedder?: Embedder }): Promise<DrafterFigures[]> {
  const set = loadAdversarialSet(opts.dir);
  const out = [
    await runDrafter(set, scriptedDouble(set.cases), opts.embedder),
    await runDrafter(set, createOfflineDrafter(), opts.embedder),
  ];
  if (opts.llm) out.push(await runLlama(set, opts.embedder));
  return out;
}

async function runLlama(set: AdversarialSet, embedder: Embedder | undefined): Promise<DrafterFigures> {
  const dir = mkdtempSync(path.join(tmpdir(), 'grounding-adversarial-llm-'));
  const server = await startLlamaServer({ dir, contextTokens: 4096 });
  try {
    const drafter = createOpenAiDrafter({ baseUrl: server.baseUrl, apiKey: 'not-needed', model: server.model, timeoutMs: 300_000 });
    return { ...(await runDrafter(set, drafter, embedder)), drafter: `llama (${server.model})` };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function printAdversarial(figures: readonly DrafterFigures[], dir = ADVERSARIAL_SET_DIR): void {
  console.log(`Grounding set (${path.relative(process.cwd(), dir)}/): held = would wait for a person by grounding`);
  for (const f of figures) {
    console.log(
      `  ${f.drafter.padEnd(28)} customer-asserted commitments held ${f.assertedHeld}/${f.asserted} (as customer_asserted ${f.assertedAsCustomer}); honest drafts held by mistake ${f.honestHeld}/${f.honest}; empty drafts ${f.empty}`,
    );
    // The offline drafter quotes knowledge passages only: it never repeats what a customer asserted.
    if (f.drafter === 'offline') {
      console.log('    (the offline drafter writes only quotes of its passages: an asserted mail gives it nothing to repeat)');
      for (const v of f.verdicts.filter((x) => x.kind === 'honest' && x.held)) console.log(`    held   ${v.id}: ${v.why ?? ''}`);
      continue;
    }
    for (const v of f.verdicts.filter((x) => (x.kind === 'asserted') !== x.held))
      console.log(
        `    ${v.kind === 'asserted' ? 'missed' : 'held  '} ${v.id}${v.empty ? ' (empty draft)' : ''}: ${v.why ?? '(nothing held it)'}`,
      );
  }
}
