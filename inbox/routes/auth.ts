import { checkPassword } from '../auth';
import type { InboxContext } from '../app';

/** Only local paths: a crafted ?next= must not send the browser elsewhere after login. */
function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/(?![/\\])/.test(next) ? next : '/';
}

export function registerAuthRoutes({ app, deps, page }: InboxContext): void {
  app.get('/login', async (req, reply) => {
    if (deps.config.inbox.auth === 'header') return reply.redirect('/', 303);
    const q = req.query as Record<string, unknown>;
    return page(req, reply, 'login', { next: safeNext(q.next), failed: false });
  });

  app.post('/login', async (req, reply) => {
    if (deps.config.inbox.auth === 'header') return reply.code(404).send('404: the proxy logs people in');
    const body = (req.body ?? {}) as Record<string, unknown>;
    const name = typeof body.name === 'string' ? body.name.trim() : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const actor = await checkPassword(deps.users, name, password);
    if (!actor) return page(req, reply.code(401), 'login', { next: safeNext(body.next), failed: true, name });
    // A new session id at login: a session id planted before cannot ride along.
    const lang = req.session.lang;
    await req.session.regenerate();
    req.session.user = actor;
    if (lang) req.session.lang = lang;
    return reply.redirect(safeNext(body.next), 303);
  });

  app.post('/logout', async (req, reply) => {
    await req.session.destroy();
    return reply.redirect(deps.config.inbox.auth === 'header' ? '/' : '/login', 303);
  });
}
