/**
 * Draft quality figures (docs/operating.md "Draft quality"): acceptance rates per group from the
 * outcome counts, and the window syntax of `email-rag quality --since`.
 */
import { type DRAFT_FLAGS, type DRAFT_OUTCOME, DRAFT_OUTCOMES, type DraftOutcome } from '../drafting';

/**
 * What the figures can be grouped by (`--by`); `prompt` is the drafter's prompt version, `guidance`
 * the guidance versions a draft was written under (`g12+g15`, or `none`).
 */
export const QUALITY_GROUPINGS = ['category', 'mailbox', 'language', 'drafter', 'prompt', 'model', 'guidance'] as const;
export type QualityGrouping = (typeof QUALITY_GROUPINGS)[number];

export interface OutcomeCount {
  group: string;
  outcome: DraftOutcome;
  count: number;
}

export interface QualityGroup {
  group: string;
  decided: number;
  counts: Record<DraftOutcome, number>;
  /** Share of the decided drafts per outcome, 0..1 (rounded to 3 places). */
  shares: Record<DraftOutcome, number>;
  /** Approved unchanged or lightly edited: drafts that did the work. */
  accepted: number;
}

export interface QualityReport {
  since: string;
  by: QualityGrouping;
  total: QualityGroup;
  groups: QualityGroup[];
}

const zero = (): Record<DraftOutcome, number> => Object.fromEntries(DRAFT_OUTCOMES.map((o) => [o, 0])) as Record<DraftOutcome, number>;
const round3 = (v: number) => Math.round(v * 1000) / 1000;

function toGroup(group: string, counts: Record<DraftOutcome, number>): QualityGroup {
  const decided = DRAFT_OUTCOMES.reduce((sum, o) => sum + counts[o], 0);
  const shares = zero();
  for (const o of DRAFT_OUTCOMES) shares[o] = decided === 0 ? 0 : round3(counts[o] / decided);
  const accepted = decided === 0 ? 0 : round3((counts.approved_unchanged + counts.light_edit) / decided);
  return { group, decided, counts, shares, accepted };
}

/** Groups largest first (then by name, so the order is stable), and the total over all of them. */
export function summariseOutcomes(rows: OutcomeCount[], since: Date, by: QualityGrouping): QualityReport {
  const byGroup = new Map<string, Record<DraftOutcome, number>>();
  const all = zero();
  for (const r of rows) {
    const counts = byGroup.get(r.group) ?? zero();
    counts[r.outcome] += r.count;
    all[r.outcome] += r.count;
    byGroup.set(r.group, counts);
  }
  const groups = [...byGroup].map(([g, c]) => toGroup(g, c)).sort((a, b) => b.decided - a.decided || a.group.localeCompare(b.group));
  return { since: since.toISOString(), by, total: toGroup('all', all), groups };
}

/** An email whose draft found no source, or was heavily edited or rejected. */
export interface GapCandidate {
  emailId: string;
  subject: string;
  /** The first lines the correspondent wrote (quotes left out). */
  opening: string;
  at: Date;
  reasons: Array<typeof DRAFT_FLAGS.noRelevantContext | typeof DRAFT_OUTCOME.heavyEdit | typeof DRAFT_OUTCOME.rejected>;
}

/** How much of a mail's text a gap keeps for grouping and display: the first lines say the question. */
export const OPENING_CHARS = 400;

/** The first lines a person wrote: quoted text and empty lines left out, at most OPENING_CHARS. */
export function openingLines(text: string): string {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('>'));
  return lines.join(' ').slice(0, OPENING_CHARS);
}
