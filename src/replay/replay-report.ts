/**
 * The replay report (`email-rag replay report`): per mailbox, category and language the counts,
 * the mean similarity and edit share with their 95 % t-intervals, beside the similarity a polite
 * non-answer reaches on the same pairs (the floor), each would-be outcome's share
 * with its Wilson interval, the share of the sent replies' facts the drafts had, the knowledge
 * gaps grouped by topic, and which categories would qualify for automatic sending under the
 * current policy if these were live figures. Replay figures are never live figures: they are
 * shown apart and count toward a category's record only when the policy names the run
 * (`countReplay`, src/autonomy/replay-evidence.ts).
 */
import { AUTONOMY_DEFAULTS, judgeRecord, policyLabel, type AutonomyPolicy } from '../autonomy';
import { DRAFT_FLAGS } from '../drafting';
import { openingLines, type GapCandidate, groupGaps, type GapCluster } from '../operations';
import type { Embedder } from '../retrieval';
import { meanInterval, shareInterval, type MeanInterval, type ShareInterval } from './replay-statistics';
import { REPLAY_OUTCOME, REPLAY_OUTCOMES, REPLAY_RESULT_STATE, type ReplayOutcome } from './replay.contract';
import type { ReplayReportRow, ReplayRunView } from './replay-store.port';

/** Topics shown in the report's knowledge gaps. */
const TOP_GAPS = 5;

export interface ReplayGroup {
  group: string;
  pairs: number;
  measured: number;
  failed: number;
  similarity: MeanInterval | null;
  /**
   * The mean similarity of the mailbox's polite non-answer to the same sent replies: what greeting
   * and closing alone reach. Drafts at this level carry no more of the team's answers than a
   * non-answer does; null for a run measured before the floor existed.
   */
  nonAnswerFloor: MeanInterval | null;
  editShare: MeanInterval | null;
  outcomes: Record<ReplayOutcome, ShareInterval>;
  /** Facts of the sent replies (amounts, dates, numbers, links, addresses) the drafts had, pooled. */
  facts: ShareInterval;
  knowledgeGaps: number;
}

export interface AutonomyWouldBe {
  mailboxId: string;
  category: string;
  reviewed: number;
  unchanged: number;
  share: number;
  lower: number;
  upper: number;
  /** The record clears the mailbox's bars (minReviewed, minUnchangedShare). */
  clearsBar: boolean;
  /** The policy lists the category for the mailbox: only then would it be sent automatically. */
  listed: boolean;
  reason: string | null;
}

export interface ReplaySummary {
  total: ReplayGroup;
  byMailbox: ReplayGroup[];
  byCategory: ReplayGroup[];
  byLanguage: ReplayGroup[];
  autonomy: AutonomyWouldBe[];
}

export interface ReplayReport extends ReplaySummary {
  run: ReplayRunView;
  gaps: { grouped: boolean; problem?: string; topics: GapCluster[] };
  policy: string | null;
  /** False: the report's own figures count toward nothing; only a policy that names the run lets it count (docs/replay.md). */
  countsTowardAutonomy: false;
}

function toGroup(group: string, rows: readonly ReplayReportRow[]): ReplayGroup {
  const measured = rows.filter((r) => r.state === REPLAY_RESULT_STATE.measured);
  const outcomes = Object.fromEntries(
    REPLAY_OUTCOMES.map((o) => [o, shareInterval(measured.filter((r) => r.outcome === o).length, measured.length)]),
  ) as Record<ReplayOutcome, ShareInterval>;
  const values = (pick: (r: ReplayReportRow) => number | null) => measured.map(pick).filter((v): v is number => v !== null);
  const factsTotal = measured.reduce((a, r) => a + r.factsTotal, 0);
  return {
    group,
    pairs: rows.length,
    measured: measured.length,
    failed: rows.length - measured.length,
    similarity: meanInterval(
      values((r) => r.similarity),
      [-1, 1],
    ),
    nonAnswerFloor: meanInterval(
      values((r) => r.nonAnswerSimilarity),
      [-1, 1],
    ),
    editShare: meanInterval(
      values((r) => r.editShare),
      [0, 1],
    ),
    outcomes,
    facts: shareInterval(
      measured.reduce((a, r) => a + r.factsFound, 0),
      factsTotal,
    ),
    knowledgeGaps: measured.filter((r) => r.knowledgeGap).length,
  };
}

function groupBy(rows: readonly ReplayReportRow[], key: (r: ReplayReportRow) => string): ReplayGroup[] {
  const by = new Map<string, ReplayReportRow[]>();
  for (const r of rows) by.set(key(r) || '-', [...(by.get(key(r) || '-') ?? []), r]);
  return [...by].map(([g, list]) => toGroup(g, list)).sort((a, b) => b.pairs - a.pairs || a.group.localeCompare(b.group));
}

/**
 * Earned autonomy's own judgement (judgeRecord) over the replay's record of each mailbox and
 * category: its newest recordSize measured pairs, unchanged counted as a person's unchanged approval.
 */
function wouldQualify(rows: readonly ReplayReportRow[], policy: AutonomyPolicy | null): AutonomyWouldBe[] {
  const measured = rows.filter((r) => r.state === REPLAY_RESULT_STATE.measured);
  const keys = [...new Set(measured.map((r) => `${r.mailboxId}\u0000${r.category}`))].sort();
  return keys.map((k) => {
    const [mailboxId, category] = k.split('\u0000') as [string, string];
    const bars = policy?.mailboxes[mailboxId] ?? { ...AUTONOMY_DEFAULTS, categories: [] as string[] };
    const record = measured
      .filter((r) => r.mailboxId === mailboxId && r.category === category)
      .sort((a, b) => b.at.getTime() - a.at.getTime())
      .slice(0, bars.recordSize);
    const unchanged = record.filter((r) => r.outcome === REPLAY_OUTCOME.unchanged).length;
    const j = judgeRecord({ reviewed: record.length, unchanged }, bars);
    return {
      mailboxId,
      category,
      reviewed: record.length,
      unchanged,
      share: j.share,
      lower: j.lower,
      upper: j.upper,
      clearsBar: j.qualifies,
      listed: bars.categories.includes(category),
      reason: j.reason,
    };
  });
}

/** The figures of a run's results; pure and deterministic (the knowledge gaps are grouped apart). */
export function summariseReplay(rows: readonly ReplayReportRow[], policy: AutonomyPolicy | null): ReplaySummary {
  return {
    total: toGroup('all', rows),
    byMailbox: groupBy(rows, (r) => r.mailboxId),
    byCategory: groupBy(rows, (r) => r.category),
    byLanguage: groupBy(rows, (r) => r.language),
    autonomy: wouldQualify(rows, policy),
  };
}

/** What a report of pairs needs besides the pairs: the installation's autonomy policy and, to group the gaps, an embedder. */
export type EvidenceOptions = {
  policy: AutonomyPolicy | null;
  policyLabel: string | null;
  embedder: Embedder | null;
  gapSimilarity?: number;
};

/** The options of a report from the configuration (the policy, its label, the gap threshold). */
export function evidenceOptions(
  config: { autonomy: AutonomyPolicy | null; quality: { gapSimilarity?: number } },
  embedder: Embedder | null,
): EvidenceOptions {
  return {
    policy: config.autonomy,
    policyLabel: config.autonomy ? policyLabel(config.autonomy) : null,
    embedder,
    ...(config.quality.gapSimilarity !== undefined ? { gapSimilarity: config.quality.gapSimilarity } : {}),
  };
}

/** The figures of any set of draft/reply pairs (a replay run's, or the shadow evidence of live mail): groups, would-be autonomy, knowledge gaps. */
export interface EvidenceFigures extends ReplaySummary {
  gaps: { grouped: boolean; problem?: string; topics: GapCluster[] };
  policy: string | null;
}

export async function buildEvidenceFigures(rows: readonly ReplayReportRow[], opts: EvidenceOptions): Promise<EvidenceFigures> {
  const gaps: GapCandidate[] = rows
    .filter((r) => r.state === REPLAY_RESULT_STATE.measured && r.knowledgeGap)
    .map((r) => ({
      emailId: r.pairId,
      subject: r.subject,
      opening: openingLines(r.body),
      at: r.at,
      reasons: [DRAFT_FLAGS.noRelevantContext],
    }));
  const grouped = await groupGaps(opts.embedder, gaps, opts.gapSimilarity);
  return {
    ...summariseReplay(rows, opts.policy),
    gaps: {
      grouped: grouped.grouped,
      ...(grouped.problem ? { problem: grouped.problem } : {}),
      topics: grouped.clusters.slice(0, TOP_GAPS),
    },
    policy: opts.policyLabel,
  };
}

export async function buildReplayReport(
  run: ReplayRunView,
  rows: readonly ReplayReportRow[],
  opts: EvidenceOptions,
): Promise<ReplayReport> {
  return { run, ...(await buildEvidenceFigures(rows, opts)), countsTowardAutonomy: false };
}
