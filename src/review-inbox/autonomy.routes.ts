/**
 * Earned autonomy in the review inbox: each mailbox category's record and state on the
 * operations page with the one button that switches every automatic send off (operators), and on
 * an email's page the time its draft is sent automatically with a button to stop it.
 */
import { stopAutomaticSend, AUTO_SEND_STATES, readAutonomyStatus, switchAutonomy } from '../autonomy';
import { createMariaDbAutonomyStore } from '../autonomy/index.adapters';
import { createMariaDbAuditLog } from '../platform/audit-log.mariadb';
import { createMariaDbReplayEvidence } from '../replay/index.adapters';
import { CASE_SIGNALS } from '../cases';
import { errorMessage } from '../platform/errors';
import type { InboxContext, InboxDeps } from './inbox-context';
import { formatTime } from './format';
import { TEXTS, pickLanguage, type Texts } from './i18n';

const pct = (v: number) => `${(v * 100).toFixed(1)}\u00a0%`;
/** "14:32 UTC": the inbox shows every time in UTC. */
const clock = (d: Date) => `${d.toISOString().slice(11, 16)} UTC`;
const emailPath = (id: string) => `/email/${encodeURIComponent(id)}`;

/** The operations page's autonomy table: record, bar and state per mailbox category, and the pending sends. */
export async function autonomySection(deps: Pick<InboxDeps, 'pool' | 'config'>, t: Texts) {
  const s = await readAutonomyStatus(createMariaDbAutonomyStore(deps.pool, createMariaDbReplayEvidence(deps.pool)), deps.config.autonomy);
  return {
    on: s.switch.on,
    switchedBy: s.switch.by,
    switchedAt: s.switch.at ? formatTime(s.switch.at) : null,
    policy: s.policy,
    rows: s.categories.map((c) => ({
      ...c,
      sharePct: pct(c.share),
      boundPct: `${pct(c.lower)} – ${pct(c.upper)}`,
      // The interval is then of live and replay together: the split beside it.
      replayNote: c.replay
        ? t.autonomyWithReplay
            .replace('{runs}', c.replay.runs.join(', ') || '–')
            .replace('{unchanged}', String(c.replay.unchanged))
            .replace('{reviewed}', String(c.replay.reviewed))
            .replace('{share}', pct(c.replay.countedShare))
        : null,
      bar: `${c.minReviewed} · ${pct(c.minShare)}`,
      demotedAt: c.lastDemotedAt ? formatTime(c.lastDemotedAt) : null,
      stateLabel: t[`autonomyState_${c.state}`],
    })),
    pending: s.pending.map((p) => ({ ...p, at: formatTime(p.sendAfter), href: emailPath(p.emailId) })),
  };
}

/** The automatic send planned for the draft shown, while it is still pending. */
export async function pendingAutoSend(deps: Pick<InboxDeps, 'pool'>, draftId: string | undefined) {
  if (!draftId) return null;
  const p = await createMariaDbAutonomyStore(deps.pool).pending(draftId);
  if (p?.state !== AUTO_SEND_STATES.pending) return null;
  return { draftId: p.draftId, at: clock(p.sendAfter), policy: p.policy };
}

export function registerAutonomyRoutes({ app, deps }: InboxContext): void {
  app.post('/email/:id/stop-auto-send', async (req, reply) => {
    const { id } = req.params as { id: string };
    const draftId = (req.body as Record<string, unknown> | undefined)?.draftId;
    const t = TEXTS[req.session.lang ?? pickLanguage(req.headers['accept-language'])];
    try {
      const r = await stopAutomaticSend(
        { autonomy: createMariaDbAutonomyStore(deps.pool), audit: createMariaDbAuditLog(deps.pool) },
        { emailId: id, draftId: typeof draftId === 'string' ? draftId : '', by: req.actor!.name },
      );
      req.session.flash = r.stopped ? { kind: 'ok', message: t.autoSendStopped } : { kind: 'refused', message: t.autoSendAlreadySent };
      // The stop stands in MariaDB either way (the automatic send checks it); the case workflow drops its timer.
      const caseId = r.stopped ? (await deps.store.email(id))?.caseId : null;
      if (caseId)
        await deps.caseSignals
          ?.notify(caseId, CASE_SIGNALS.stopAutoSend, { emailId: id, draftId: String(draftId), by: req.actor!.name })
          .catch(() => undefined);
    } catch (err) {
      req.session.flash = { kind: 'refused', message: errorMessage(err) };
    }
    return reply.redirect(emailPath(id), 303);
  });

  app.post('/ops/autonomy/off', async (req, reply) => {
    if (req.actor?.role !== 'operator')
      return reply.code(403).type('text/plain; charset=utf-8').send('403: only operators switch autonomy');
    await switchAutonomy({ store: createMariaDbAutonomyStore(deps.pool), audit: createMariaDbAuditLog(deps.pool) }, false, req.actor.name);
    const t = TEXTS[req.session.lang ?? pickLanguage(req.headers['accept-language'])];
    req.session.flash = { kind: 'ok', message: t.autonomySwitchedOff };
    return reply.redirect('/ops#autonomy', 303);
  });
}
