import { REVIEW_INBOX_AUDIT_EVENTS } from './review-inbox.contract';
import { clientAddress } from './auth';
import type { InboxContext } from './inbox-context';
import { formatDuration } from './format';

/** Only local paths: a crafted ?next= must not send the browser elsewhere after login. */
function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/(?![/\\])/.test(next) ? next : '/';
}

export function registerAuthRoutes({ app, deps, page, sessions, guard, audit, sso }: InboxContext): void {
  const cfg = deps.config.inbox;
  app.get('/login', async (req, reply) => {
    if (cfg.auth === 'header') return reply.redirect('/', 303);
    const q = req.query as Record<string, unknown>;
    return page(req, reply, 'login', { next: safeNext(q.next), failed: false });
  });

  app.post('/login', async (req, reply) => {
    if (cfg.auth === 'header') return reply.code(404).send('404: the proxy logs people in');
    if (!cfg.localUsers) return reply.code(404).send('404: sign in with single sign-on');
    const body = (req.body ?? {}) as Record<string, unknown>;
    const name = typeof body.name === 'string' ? body.name.trim() : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const address = clientAddress(req, deps.config.inbox);
    const result = await guard.signIn(name, password, address);
    if (!result.ok) {
      const next = safeNext(body.next);
      if (result.reason === 'wrong_credentials') return page(req, reply.code(401), 'login', { next, failed: true, name });
      const wait = result.retryAfterSeconds ?? 60;
      reply.code(429).header('Retry-After', String(wait));
      return page(req, reply, 'login', { next, failed: true, throttled: formatDuration(wait), name });
    }
    // A new session id at login: a session id planted before cannot ride along.
    const lang = req.session.lang;
    await req.session.regenerate();
    req.session.user = result.actor;
    req.session.signIn = { at: Date.now(), address, agent: String(req.headers['user-agent'] ?? ''), via: 'password' };
    if (lang) req.session.lang = lang;
    return reply.redirect(safeNext(body.next), 303);
  });

  app.post('/logout', async (req, reply) => {
    const viaSso = req.session.signIn?.via === 'oidc';
    const idToken = req.session.idToken;
    await req.session.destroy();
    // Signed in at the provider: log out there too (RP-initiated logout), then back to our login page.
    const atProvider = viaSso && sso && cfg.oidc ? await sso.logoutUrl(idToken, `${cfg.oidc.publicUrl}/login`) : null;
    return reply.redirect(atProvider ?? (cfg.auth === 'header' ? '/' : '/login'), 303);
  });

  // Ends this person's sessions in every browser and inbox process (a lost laptop, a shared screen).
  app.post('/logout/everywhere', async (req, reply) => {
    const name = req.actor!.name;
    const ended = await sessions.endSessionsOf(name);
    await audit.record({
      emailId: null,
      correlationId: `inbox-user-${name}`.slice(0, 191),
      eventType: REVIEW_INBOX_AUDIT_EVENTS.sessionsEnded,
      actor: name,
      message: `${name} signed out everywhere: ${ended} session(s) ended`,
      details: { reason: 'sign_out_everywhere', sessions: ended },
    });
    await req.session.destroy();
    return reply.redirect(deps.config.inbox.auth === 'header' ? '/' : '/login', 303);
  });
}
