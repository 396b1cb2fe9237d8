/**
 * The operations page's chart of draft outcomes per day: an SVG written on the server (the
 * inbox runs no script), stacked daily counts per outcome, colours from inbox.css classes (the
 * CSP allows no inline styles). A `<title>`/`<desc>` pair names it for screen readers, each bar
 * segment has its own `<title>`, and the page shows the same numbers as a table beside it.
 */
import { DRAFT_OUTCOMES, type DraftOutcome } from '../drafting';

export interface DailyOutcomes {
  day: string;
  counts: Record<DraftOutcome, number>;
}

/** The `days` days up to and including `today` (UTC), each with its counts (0 where none were decided). */
export function dailySeries(rows: Array<{ day: string; outcome: DraftOutcome; count: number }>, today: Date, days = 30): DailyOutcomes[] {
  const out: DailyOutcomes[] = [];
  for (let i = days - 1; i >= 0; i--) {
    const day = new Date(today.getTime() - i * 86_400_000).toISOString().slice(0, 10);
    const counts = Object.fromEntries(DRAFT_OUTCOMES.map((o) => [o, 0])) as Record<DraftOutcome, number>;
    for (const r of rows) if (r.day === day) counts[r.outcome] += r.count;
    out.push({ day, counts });
  }
  return out;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const W = 720;
const H = 220;
const LEFT = 36;
const BOTTOM = 24;
const TOP = 8;

export function outcomeChartSvg(
  series: DailyOutcomes[],
  text: { title: string; desc: string; label: (o: DraftOutcome) => string },
): string {
  const totals = series.map((d) => DRAFT_OUTCOMES.reduce((sum, o) => sum + d.counts[o], 0));
  const max = Math.max(1, ...totals);
  const plotH = H - TOP - BOTTOM;
  const slot = (W - LEFT) / Math.max(1, series.length);
  const barW = Math.max(2, slot - 3);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="outcome-chart" viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-labelledby="outcome-chart-title outcome-chart-desc">`,
    `<title id="outcome-chart-title">${esc(text.title)}</title>`,
    `<desc id="outcome-chart-desc">${esc(text.desc)}</desc>`,
    `<line class="axis" x1="${LEFT}" y1="${TOP + plotH}" x2="${W}" y2="${TOP + plotH}"/>`,
    `<text class="tick" x="${LEFT - 4}" y="${TOP + 10}" text-anchor="end">${max}</text>`,
    `<text class="tick" x="${LEFT - 4}" y="${TOP + plotH}" text-anchor="end">0</text>`,
  ];
  series.forEach((d, i) => {
    const x = LEFT + i * slot + 1.5;
    let y = TOP + plotH;
    for (const o of DRAFT_OUTCOMES) {
      const n = d.counts[o];
      if (n === 0) continue;
      const h = (n / max) * plotH;
      y -= h;
      parts.push(
        `<rect class="o-${o}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}"><title>${esc(`${d.day}: ${n} ${text.label(o)}`)}</title></rect>`,
      );
    }
    // A date under every seventh bar, counted back from today (whose label ends at the right edge).
    if ((series.length - 1 - i) % 7 === 0) {
      const last = i === series.length - 1;
      const at = last ? x + barW : x + barW / 2;
      parts.push(
        `<text class="tick" x="${at.toFixed(1)}" y="${H - 6}" text-anchor="${last ? 'end' : 'middle'}">${esc(d.day.slice(5))}</text>`,
      );
    }
  });
  parts.push('</svg>');
  return parts.join('');
}
