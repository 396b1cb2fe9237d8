/** The operations page's outcome chart: 30 days with gaps filled, stacked segments, escaped text. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dailySeries, outcomeChartSvg } from '../../src/review-inbox/quality-chart';

test('every day of the window gets a bar, stacked per outcome, its text escaped', () => {
  const today = new Date('2026-12-03T10:00:00Z');
  const series = dailySeries(
    [
      { day: '2026-12-03', outcome: 'approved_unchanged', count: 3 },
      { day: '2026-12-03', outcome: 'rejected', count: 1 },
      { day: '2026-11-20', outcome: 'light_edit', count: 2 },
      { day: '2026-10-01', outcome: 'light_edit', count: 9 },
    ],
    today,
    30,
  );
  assert.equal(series.length, 30);
  assert.equal(series[0]!.day, '2026-11-04');
  assert.equal(series[29]!.counts.approved_unchanged, 3);
  assert.equal(
    series.reduce((n, d) => n + d.counts.light_edit, 0),
    2,
    'days before the window are left out',
  );
  const svg = outcomeChartSvg(series, { title: 'Outcomes <30 days>', desc: 'a & b', label: (o) => o.replace('_', ' ') });
  assert.match(svg, /^<svg [^>]*role="img" aria-labelledby="outcome-chart-title outcome-chart-desc">/);
  assert.match(svg, /<title id="outcome-chart-title">Outcomes &lt;30 days&gt;<\/title><desc id="outcome-chart-desc">a &amp; b<\/desc>/);
  assert.equal((svg.match(/<rect /g) ?? []).length, 3);
  // The tallest bar (4) fills the plot: the unchanged segment 3/4 of it, the rejected one on top.
  assert.match(svg, /<rect class="o-approved_unchanged" [^>]*height="141\.0"><title>2026-12-03: 3 approved unchanged<\/title>/);
  assert.match(svg, /<rect class="o-rejected" x="[\d.]+" y="8\.0" [^>]*height="47\.0">/);
  assert.doesNotMatch(svg, /style=/, 'no inline styles: the CSP forbids them');
  assert.match(svg, /text-anchor="end">12-03<\/text>/);
});
