/**
 * The shadow report: the replay's figures (per mailbox, category and language, with intervals,
 * would-be autonomy and knowledge gaps) over the drafts people answered instead of, plus how many
 * drafts were withdrawn and how quickly the assistant stood down.
 */
import { buildEvidenceFigures, REPLAY_RESULT_STATE, type EvidenceFigures, type EvidenceOptions, type ReplayReportRow } from '../replay';
import type { ShadowReportRow } from './shadow-evidence.port';

/** Stand-downs: how many, and the time from the person's reply (its Date header) to the withdrawal. */
export interface StandDownFigures {
  withdrawn: number;
  /** Seconds, p50 and p95; null without stand-downs. */
  latencyP50: number | null;
  latencyP95: number | null;
}

export interface ShadowReport extends EvidenceFigures {
  filter: { mailboxId: string | null; mode: string | null; sinceDays: number | null };
  standDowns: StandDownFigures;
  /** Mailboxes and the mode they run in now. */
  modes: Array<{ mailboxId: string; mode: string }>;
}

export function asReplayRow(r: ShadowReportRow): ReplayReportRow {
  return {
    pairId: r.emailId,
    state: REPLAY_RESULT_STATE.measured,
    outcome: r.outcome,
    similarity: r.similarity,
    nonAnswerSimilarity: r.nonAnswerSimilarity,
    editShare: r.editShare,
    factsTotal: r.factsTotal,
    factsFound: r.factsFound,
    category: r.category,
    language: r.language,
    knowledgeGap: r.knowledgeGap,
    mailboxId: r.mailboxId,
    subject: r.subject,
    body: r.body,
    at: r.repliedAt,
  };
}

/** The value below which `q` of the sorted values lie (nearest rank). */
export function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function standDownFigures(latenciesSeconds: readonly number[]): StandDownFigures {
  const sorted = [...latenciesSeconds].sort((a, b) => a - b);
  return { withdrawn: sorted.length, latencyP50: percentile(sorted, 0.5), latencyP95: percentile(sorted, 0.95) };
}

export async function buildShadowReport(
  rows: readonly ShadowReportRow[],
  extra: Pick<ShadowReport, 'filter' | 'standDowns' | 'modes'>,
  opts: EvidenceOptions,
): Promise<ShadowReport> {
  return { ...(await buildEvidenceFigures(rows.map(asReplayRow), opts)), ...extra };
}
