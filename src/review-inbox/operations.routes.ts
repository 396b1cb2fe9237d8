import {
  createMariaDbDeadLetters,
  backlogByStatusAndPriority,
  oldestWaiting,
  readMetrics,
  sendProblems,
} from '../operations/index.adapters';
import { errorMessage } from '../platform/errors';
import { temporalUiLink, type InboxContext } from './inbox-context';
import { formatDuration, formatTime } from './format';
import { TEXTS, pickLanguage } from './i18n';
import { autonomySection } from './autonomy.routes';
import { qualitySection } from './quality-section.routes';

export function registerOperationsRoutes({ app, deps, page }: InboxContext): void {
  app.get('/ops', async (req, reply) => {
    const link = (id: string) => temporalUiLink(deps.config, id);
    const t = TEXTS[req.session.lang ?? pickLanguage(req.headers['accept-language'])];
    const [backlog, oldest, metrics, dead, sends, quality, autonomy] = await Promise.all([
      backlogByStatusAndPriority(deps.pool),
      oldestWaiting(deps.pool),
      readMetrics(
        deps.pool,
        60,
        deps.config.inbox.slaMinutes.high,
        deps.config.mailboxes.filter((b) => b.enabled).map((b) => ({ id: b.id, folders: b.imap.folders })),
      ),
      createMariaDbDeadLetters(deps.pool).list(),
      sendProblems(deps.pool),
      qualitySection(deps, req.query as Record<string, unknown>, t),
      autonomySection(deps, t),
    ]);
    return page(req, reply, 'ops', {
      backlog: backlog.map((b) => ({ ...b, oldest: formatDuration(b.oldestSeconds) })),
      oldest: oldest
        ? { ...oldest, age: formatDuration(oldest.ageSeconds), href: `/email/${encodeURIComponent(oldest.id)}`, ui: link(oldest.id) }
        : null,
      metrics,
      steps: Object.entries(metrics.steps).map(([step, s]) => ({ step, ...s })),
      dead: dead.map((d) => ({
        ...d,
        died: formatTime(d.diedAt),
        cause: (d.lastError ?? '').split('\n')[0]?.slice(0, 300),
        ui: link(d.correlationId),
        href: d.emailId ? `/email/${encodeURIComponent(d.emailId)}` : null,
      })),
      sends: sends.map((s) => ({ ...s, since: formatTime(s.since), ui: link(s.emailId), href: `/email/${encodeURIComponent(s.emailId)}` })),
      canRequeue: req.actor?.role === 'operator',
      quality,
      autonomy,
    });
  });

  app.post('/ops/dead/:id/requeue', async (req, reply) => {
    if (req.actor?.role !== 'operator')
      return reply.code(403).type('text/plain; charset=utf-8').send('403: only operators re-queue dead letters');
    const id = Number((req.params as { id: string }).id);
    if (!Number.isInteger(id) || id < 1) return reply.code(400).type('text/plain; charset=utf-8').send('400: no such dead letter');
    try {
      req.session.flash = { kind: 'ok', message: await deps.requeue(id, req.actor.name) };
    } catch (err) {
      req.session.flash = { kind: 'refused', message: errorMessage(err) };
    }
    return reply.redirect('/ops', 303);
  });
}
