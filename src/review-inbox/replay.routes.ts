/**
 * The replay page (operators): the replay runs with their progress, and one run's report table
 * (docs/replay.md). Read only: runs are started and deleted with the CLI.
 */
import type { FastifyRequest } from 'fastify';
import {
  buildReplayReport,
  evidenceOptions,
  type EvidenceFigures,
  type ReplayGroup,
  type MeanInterval,
  type ShareInterval,
  REPLAY_OUTCOME,
} from '../replay';
import { createMariaDbReplayStore } from '../replay/index.adapters';
import type { InboxContext } from './inbox-context';
import { formatTime } from './format';
import { pickLanguage } from './i18n';
import { REPLAY_TEXTS, type ReplayTexts } from './replay-texts';

export const textsOf = (req: FastifyRequest) => REPLAY_TEXTS[req.session.lang ?? pickLanguage(req.headers['accept-language'])];
const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
const num = (v: number) => v.toFixed(3);
const mean = (m: MeanInterval | null) =>
  !m ? '–' : m.lower === null || m.upper === null ? num(m.mean) : `${num(m.mean)} [${num(m.lower)}–${num(m.upper)}]`;
const share = (s: ShareInterval) => (s.of === 0 ? '–' : `${pct(s.share)} [${pct(s.lower)}–${pct(s.upper)}]`);

export function rowOf(g: ReplayGroup) {
  return {
    group: g.group,
    pairs: g.failed ? `${g.measured} (+${g.failed})` : String(g.measured),
    similarity: mean(g.similarity),
    floor: mean(g.nonAnswerFloor),
    editShare: mean(g.editShare),
    unchanged: share(g.outcomes[REPLAY_OUTCOME.unchanged]),
    light: share(g.outcomes[REPLAY_OUTCOME.light]),
    heavy: share(g.outcomes[REPLAY_OUTCOME.heavy]),
    notAnswerable: share(g.outcomes[REPLAY_OUTCOME.notAnswerable]),
    facts: share(g.facts),
    gaps: g.knowledgeGaps,
  };
}

/** The tables, would-be autonomy and gaps of a set of pairs, as the replay and shadow pages show them. */
export function figuresView(report: EvidenceFigures, rt: ReplayTexts) {
  return {
    total: rowOf(report.total),
    sections: [
      { title: rt.byMailbox, rows: report.byMailbox.map(rowOf) },
      { title: rt.byCategory, rows: report.byCategory.map(rowOf) },
      { title: rt.byLanguage, rows: report.byLanguage.map(rowOf) },
    ],
    policy: report.policy,
    autonomy: report.autonomy.map((a) => ({
      ...a,
      lowerText: pct(a.lower),
      verdict: a.clearsBar ? (a.listed ? rt.wouldQualify : rt.notListed) : `${rt.wouldNot}: ${a.reason ?? ''}`,
    })),
    gaps: report.gaps.topics.slice(0, 10).map((t) => ({ count: t.count, examples: t.examples.join(' | ') })),
  };
}

export function registerReplayRoutes({ app, deps, page }: InboxContext): void {
  const store = createMariaDbReplayStore(deps.pool);

  app.get('/replay', async (req, reply) => {
    const rt = textsOf(req);
    // Replayed mail is every correspondent's mail at once: operators only.
    if (req.actor?.role !== 'operator') return reply.code(403).type('text/plain; charset=utf-8').send(rt.operatorOnly);
    const runs = await store.runs(50);
    const wanted = (req.query as Record<string, unknown>).run;
    const chosen = typeof wanted === 'string' ? runs.find((r) => r.id === wanted) : undefined;
    // The gaps are listed one by one here: the page asks no embedder.
    const report = chosen ? await buildReplayReport(chosen, await store.reportRows(chosen.id), evidenceOptions(deps.config, null)) : null;
    return page(req, reply, 'replay', {
      rt,
      runs: runs.map((r) => ({
        ...r,
        started: formatTime(r.createdAt),
        href: `/replay?run=${encodeURIComponent(r.id)}`,
        current: r.id === chosen?.id,
      })),
      report: report && { title: rt.report.replace('{run}', report.run.id), ...figuresView(report, rt) },
    });
  });
}
