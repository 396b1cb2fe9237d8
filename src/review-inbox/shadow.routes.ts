/**
 * The shadow page (operators): drafts people answered instead of, measured against the replies they
 * sent — the figures of `email-rag shadow report` (docs/answered-elsewhere.md#shadow-mode).
 */
import { evidenceOptions } from '../replay';
import { MAILBOX_MODES } from '../mailboxes';
import { buildShadowReport, standDownFigures } from '../shadow';
import { createMariaDbShadowEvidence } from '../shadow/index.adapters';
import type { InboxContext } from './inbox-context';
import { figuresView, textsOf } from './replay.routes';

const seconds = (s: number | null) => (s === null ? '–' : `${s.toFixed(1)} s`);

export function registerShadowRoutes({ app, deps, page }: InboxContext): void {
  const store = createMariaDbShadowEvidence(deps.pool);

  app.get('/shadow', async (req, reply) => {
    const rt = textsOf(req);
    // Every mailbox's mail at once: operators only, as the replay page.
    if (req.actor?.role !== 'operator') return reply.code(403).type('text/plain; charset=utf-8').send(rt.operatorOnly);
    const modes = deps.config.mailboxes.map((m) => ({ mailboxId: m.id, mode: m.mode ?? MAILBOX_MODES.live }));
    const stood = standDownFigures(await store.standDownLatencies({}));
    // The gaps are listed one by one here: the page asks no embedder.
    const report = await buildShadowReport(
      await store.rows({}),
      { filter: { mailboxId: null, mode: null, sinceDays: null }, standDowns: stood, modes },
      evidenceOptions(deps.config, null),
    );
    return page(req, reply, 'shadow', {
      rt,
      modes,
      standDowns: rt.standDowns
        .replace('{n}', String(stood.withdrawn))
        .replace('{p50}', seconds(stood.latencyP50))
        .replace('{p95}', seconds(stood.latencyP95)),
      report: report.total.measured === 0 ? null : figuresView(report, rt),
    });
  });
}
