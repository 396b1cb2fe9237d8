/** The operations page's draft quality and knowledge gaps (docs/review-inbox.md "Operations"). */
import { dailyOutcomes, readGaps, readQuality } from '../operations/index.adapters';
import { QUALITY_GROUPINGS, type QualityGrouping } from '../operations';
import { DRAFT_OUTCOMES, type DraftOutcome } from '../drafting';
import { parseWindow } from '../platform/time-window';
import type { InboxDeps } from './inbox-context';
import type { Texts } from './i18n';
import { dailySeries, outcomeChartSvg } from './quality-chart';

/** The windows the page offers; `email-rag quality --since` takes any. */
const WINDOWS = ['7d', '30d', '90d'] as const;
const CHART_DAYS = 30;
/** A share as the table shows it; the no-break space keeps "12.5 %" on one line. */
const percent = (v: number) => `${(v * 100).toFixed(1)}\u00a0%`;
/** The page embeds its gaps on every load: the newest 200 keep it within a second or two. */
const PAGE_GAPS = 200;

export async function qualitySection(deps: InboxDeps, query: Record<string, unknown>, t: Texts) {
  const since = WINDOWS.find((w) => w === query.since) ?? '30d';
  const by = QUALITY_GROUPINGS.find((g) => g === query.by) ?? 'category';
  const now = new Date();
  const label = (o: DraftOutcome) => t[`outcome_${o}`];
  const [report, daily, gaps] = await Promise.all([
    readQuality(deps.pool, parseWindow(since, now), by),
    dailyOutcomes(deps.pool, new Date(`${new Date(now.getTime() - (CHART_DAYS - 1) * 86_400_000).toISOString().slice(0, 10)}T00:00:00Z`)),
    // The embedder being down or slow lists the gaps ungrouped; it never fails the page.
    readGaps(deps.pool, parseWindow(since, now), deps.embedder ?? null, {
      limit: PAGE_GAPS,
      similarity: deps.config.quality.gapSimilarity,
    }),
  ]);
  const series = dailySeries(daily, now, CHART_DAYS);
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return {
    windows: WINDOWS.map((w) => ({ value: w, selected: w === since })),
    groupings: QUALITY_GROUPINGS.map((g: QualityGrouping) => ({ value: g, label: t[`by_${g}`], selected: g === by })),
    byLabel: t[`by_${by}`],
    outcomes: DRAFT_OUTCOMES.map((o) => ({ key: o, label: label(o) })),
    rows: [...report.groups, report.total].map((g) => ({
      group: g === report.total ? t.all : g.group,
      total: g === report.total,
      decided: g.decided,
      accepted: percent(g.accepted),
      cells: DRAFT_OUTCOMES.map((o) => ({ count: g.counts[o], share: percent(g.shares[o]) })),
    })),
    chart: outcomeChartSvg(series, { title: t.outcomeChartTitle, desc: t.outcomeChartDesc, label }),
    daily: series.map((d) => ({ day: d.day, cells: DRAFT_OUTCOMES.map((o) => d.counts[o]) })),
    gaps: {
      grouped: gaps.grouped,
      problem: gaps.problem,
      mails: gaps.mails,
      clusters: gaps.clusters.slice(0, 50).map((c) => ({
        count: c.count,
        examples: c.examples,
        period: c.first.getTime() === c.last.getTime() ? day(c.first) : `${day(c.first)} – ${day(c.last)}`,
        reasons: Object.entries(c.reasons)
          .map(([r, n]) => `${r} ${n}`)
          .join(', '),
      })),
    },
  };
}
