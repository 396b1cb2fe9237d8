import { buildEmbedder } from '../retrieval/index.adapters';
import { type Embedder } from '../retrieval';
import { gapCandidates, outcomeCounts } from './draft-quality.mariadb';
import type { Pool } from '../platform/pool.mariadb';
import type { Config } from '../platform/config';
import { DRAFT_OUTCOME, DRAFT_OUTCOMES, type DraftOutcome } from '../drafting';
import { QUALITY_GROUPINGS, summariseOutcomes, type QualityGrouping, type QualityReport } from './draft-quality';
import { parseWindow } from '../platform/time-window';
import { groupGaps, type GroupedGaps } from './gap-clusters';
import { CliError, connectDatabase } from '../platform/cli-context';
import { JSON_OPTION, type CliCommand } from '../platform/cli-command';

export interface GapsReport extends GroupedGaps {
  since: string;
  mails: number;
}

/** Acceptance rates of the drafts decided in the window, per group (docs/operating.md "Draft quality"). */
export async function readQuality(pool: Pool, since: Date, by: QualityGrouping): Promise<QualityReport> {
  return summariseOutcomes(await outcomeCounts(pool, since, by), since, by);
}

/** The knowledge gaps of the window (the newest `limit` mails), grouped by topic when the embedder answers. */
export async function readGaps(
  pool: Pool,
  since: Date,
  embedder: Embedder | null,
  opts: { limit?: number; similarity?: number } = {},
): Promise<GapsReport> {
  const gaps = await gapCandidates(pool, since, opts.limit ?? 500);
  return { since: since.toISOString(), mails: gaps.length, ...(await groupGaps(embedder, gaps, opts.similarity)) };
}

function windowStart(since: string): Date {
  try {
    return parseWindow(since, new Date());
  } catch (err) {
    throw new CliError((err as Error).message, 2);
  }
}

export async function quality(config: Config, opts: { since: string; by: QualityGrouping }): Promise<QualityReport> {
  const since = windowStart(opts.since);
  const pool = await connectDatabase(config);
  try {
    return await readQuality(pool, since, opts.by);
  } finally {
    await pool.end();
  }
}

export async function qualityGaps(config: Config, opts: { since: string }): Promise<GapsReport> {
  const since = windowStart(opts.since);
  const pool = await connectDatabase(config);
  // Grouping needs the embedder (a local one runs for this command only); without it the gaps
  // come back ungrouped with the reason, never as a failure.
  const embedding = await buildEmbedder(config).catch(() => null);
  try {
    return await readGaps(pool, since, embedding?.embedder ?? null, { similarity: config.quality.gapSimilarity });
  } finally {
    await embedding?.stop();
    await pool.end();
  }
}

const pct = (v: number) => `${(v * 100).toFixed(1)} %`.padStart(7);
/** Short column heads. */
const HEADS: Record<DraftOutcome, string> = {
  approved_unchanged: 'unchanged',
  light_edit: 'light',
  heavy_edit: 'heavy',
  rejected: DRAFT_OUTCOME.rejected,
  redrafted: DRAFT_OUTCOME.redrafted,
  written_by_person: 'by person',
};

export function formatQuality(r: QualityReport): string {
  if (r.total.decided === 0) return `no decided drafts since ${r.since}`;
  const width = Math.max(8, ...r.groups.map((g) => g.group.length));
  const head = `${r.by.padEnd(width)}  decided  accepted  ${DRAFT_OUTCOMES.map((o) => HEADS[o].padStart(9)).join('  ')}`;
  const line = (g: QualityReport['total']) =>
    `${g.group.padEnd(width)}  ${String(g.decided).padStart(7)}  ${pct(g.accepted).padStart(8)}  ${DRAFT_OUTCOMES.map((o) =>
      `${g.counts[o]} ${pct(g.shares[o]).trim()}`.padStart(9),
    ).join('  ')}`;
  return [
    `drafts decided since ${r.since} (accepted: approved unchanged or lightly edited, under 40 % of words changed)`,
    head,
    ...r.groups.map(line),
    line(r.total),
  ].join('\n');
}

export function formatGaps(r: GapsReport): string {
  if (r.mails === 0) return `no knowledge gaps since ${r.since}`;
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return [
    `${r.mails} mails since ${r.since} whose draft found no relevant source or was heavily edited or rejected` +
      (r.grouped ? `, in ${r.clusters.length} topics:` : ` (not grouped: ${r.problem}):`),
    ...r.clusters.map(
      (c) => `${String(c.count).padStart(4)}  ${day(c.first)}…${day(c.last)}  ${c.examples.map((e) => `"${e}"`).join(' · ')}`,
    ),
  ].join('\n');
}

export const qualityCommand: CliCommand<QualityReport | GapsReport> = {
  name: 'quality',
  usage: `quality [--since 30d] [--by category|mailbox|language|drafter|prompt|model|guidance] [--json]
                                        what became of the decided drafts: shares approved unchanged, lightly
                                        (< 40 % of words) or heavily edited, rejected, redrafted, written by a person
quality --gaps [--since 30d] [--json]   knowledge gaps: mails whose draft found no source or was heavily edited
                                        or rejected, grouped by topic with the embedder`,
  options: {
    ...JSON_OPTION,
    gaps: { type: 'boolean', default: false },
    since: { type: 'string', default: '30d' },
    by: { type: 'string', default: 'category' },
  },
  async run(ctx, { values }) {
    const since = String(values.since);
    const by = String(values.by);
    if (values.gaps) return qualityGaps(ctx.config(), { since });
    if (!(QUALITY_GROUPINGS as readonly string[]).includes(by)) {
      throw new CliError(`--by takes one of ${QUALITY_GROUPINGS.join(', ')}`, 2);
    }
    return quality(ctx.config(), { since, by: by as QualityGrouping });
  },
  format: (r, { values }) => (values.gaps ? formatGaps(r as GapsReport) : formatQuality(r as QualityReport)),
};
