/** The replay commands' text output. */
import type { EvidenceFigures, ReplayGroup, ReplayReport } from './replay-report';
import type { MeanInterval, ShareInterval } from './replay-statistics';
import type { ReplayRunView } from './replay-store.port';
import type { ReplayProgress } from './replay.workflow';
import { REPLAY_OUTCOME } from './replay.contract';

const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
const num = (v: number) => v.toFixed(3);

function mean(m: MeanInterval | null): string {
  if (!m) return '–';
  return m.lower === null || m.upper === null ? `${num(m.mean)}` : `${num(m.mean)} [${num(m.lower)}–${num(m.upper)}]`;
}

function share(s: ShareInterval): string {
  return s.of === 0 ? '–' : `${pct(s.share)} [${pct(s.lower)}–${pct(s.upper)}]`;
}

export function formatRun(run: ReplayRunView & { workflow: ReplayProgress | null }): string {
  const state = run.workflow ? 'running' : run.status;
  return (
    `${run.id}  ${state}  mailbox ${run.mailboxId}  ${run.done}/${run.total} done, ${run.failed} failed  ` +
    `(${run.archiveName}, by ${run.createdBy}, ${run.createdAt.toISOString()}${run.finishedAt ? `, finished ${run.finishedAt.toISOString()}` : ''})`
  );
}

function table(title: string, groups: ReplayGroup[]): string[] {
  const head = [
    '',
    'pairs',
    'similarity [95 %]',
    'non-answer floor [95 %]',
    'edit share [95 %]',
    'unchanged',
    'light edit',
    'heavy edit',
    'not answerable',
    'facts found',
    'gaps',
  ];
  const rows = groups.map((g) => [
    g.group,
    `${g.measured}${g.failed ? ` (+${g.failed} failed)` : ''}`,
    mean(g.similarity),
    mean(g.nonAnswerFloor),
    mean(g.editShare),
    share(g.outcomes[REPLAY_OUTCOME.unchanged]),
    share(g.outcomes[REPLAY_OUTCOME.light]),
    share(g.outcomes[REPLAY_OUTCOME.heavy]),
    share(g.outcomes[REPLAY_OUTCOME.notAnswerable]),
    share(g.facts),
    String(g.knowledgeGaps),
  ]);
  head[0] = title;
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [head, ...rows].map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}

export function formatReplayReport(r: ReplayReport): string {
  return formatEvidenceFigures(r, [
    `replay ${r.run.id} (mailbox ${r.run.mailboxId}, ${r.run.archiveName}): ${r.run.done} of ${r.run.total} pairs done, ${r.run.failed} failed`,
    'replay figures: drafts measured against the replies the team sent; not live figures, and not counted toward autonomy',
  ]);
}

/** The tables, the would-be autonomy and the knowledge gaps of a set of pairs, below `intro`. */
export function formatEvidenceFigures(r: EvidenceFigures, intro: string[]): string {
  const lines = [
    ...intro,
    'means with 95 % t-intervals; shares with 95 % Wilson intervals',
    'non-answer floor: the similarity a polite non-answer ("we found nothing; a colleague will get back to you") reaches against the same replies, by greeting and closing alone',
    '',
    ...table('total', [r.total]),
    '',
    ...table('mailbox', r.byMailbox),
    '',
    ...table('category', r.byCategory),
    '',
    ...table('language', r.byLanguage),
    '',
    `automatic sending under ${r.policy ?? 'the default bars (no AUTONOMY_FILE)'}, if these were live figures:`,
  ];
  for (const a of r.autonomy) {
    const verdict = a.clearsBar
      ? a.listed
        ? 'would qualify'
        : 'clears the bar (category not listed in the policy)'
      : `would not qualify: ${a.reason}`;
    lines.push(`  ${a.mailboxId} / ${a.category}: ${a.unchanged} of ${a.reviewed} unchanged, lower bound ${pct(a.lower)}: ${verdict}`);
  }
  lines.push('', `knowledge gaps (no relevant context)${r.gaps.grouped ? ', by topic' : `, not grouped: ${r.gaps.problem ?? ''}`}:`);
  if (r.gaps.topics.length === 0) lines.push('  none');
  for (const t of r.gaps.topics) lines.push(`  ${t.count} × ${t.examples.join(' | ')}`);
  return lines.join('\n');
}
