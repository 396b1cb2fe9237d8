/**
 * Rating drafts beside the team's replies (operators): one random unrated pair at a time — a
 * replay run's result or the shadow evidence of live mail — the customer's mail, the draft and the
 * reply side by side, and three answers: would have sent it as is, with a light edit, or rewritten.
 * Only rated pairs count toward a category's earned autonomy (docs/answered-elsewhere.md#rating-pairs).
 */
import { PAIR_RATINGS, PAIR_SOURCES, REPLAY_AUDIT_EVENTS, type PairRating, type PairSource } from '../replay';
import { createMariaDbPairRatings } from '../replay/index.adapters';
import type { InboxContext } from './inbox-context';
import { textsOf } from './replay.routes';

const RATINGS = new Set<string>(Object.values(PAIR_RATINGS));
const SOURCES = new Set<string>(Object.values(PAIR_SOURCES));

export function registerPairRatingRoutes({ app, deps, page, audit }: InboxContext): void {
  const store = createMariaDbPairRatings(deps.pool);

  app.get('/rate', async (req, reply) => {
    const rt = textsOf(req);
    // Replayed and shadow mail is every correspondent's: operators only, as the replay page.
    if (req.actor?.role !== 'operator') return reply.code(403).type('text/plain; charset=utf-8').send(rt.operatorOnly);
    const [pair, counts] = await Promise.all([store.nextUnrated(), store.counts()]);
    return page(req, reply, 'rate', { rt, pair, counts, ratings: PAIR_RATINGS });
  });

  app.post('/rate', async (req, reply) => {
    const rt = textsOf(req);
    if (req.actor?.role !== 'operator') return reply.code(403).type('text/plain; charset=utf-8').send(rt.operatorOnly);
    const form = (req.body ?? {}) as Record<string, unknown>;
    const source = String(form.source ?? '');
    const pairKey = String(form.pairKey ?? '');
    const rating = String(form.rating ?? '');
    if (!SOURCES.has(source) || !RATINGS.has(rating) || pairKey === '' || pairKey.length > 191) {
      req.session.flash = { kind: 'refused', message: rt.rateRefused };
      return reply.redirect('/rate', 303);
    }
    const by = req.actor.name;
    const ok = await store.rate({ source: source as PairSource, pairKey, rating: rating as PairRating, by });
    if (!ok) {
      req.session.flash = { kind: 'refused', message: rt.rateGone };
      return reply.redirect('/rate', 303);
    }
    await audit.record({
      emailId: source === PAIR_SOURCES.shadow ? pairKey : null,
      correlationId: `${source}:${pairKey}`,
      eventType: REPLAY_AUDIT_EVENTS.pairRated,
      errorClass: null,
      actor: by,
      message: `${by} rated the ${source} pair ${pairKey}: ${rating}`,
      details: { source, pairKey, rating },
    });
    req.session.flash = { kind: 'ok', message: rt.rated.replace('{rating}', rt[`rating_${rating}` as keyof typeof rt] ?? rating) };
    return reply.redirect('/rate', 303);
  });
}
