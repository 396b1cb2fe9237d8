/**
 * Who is acting. Password mode: inbox_users with bcrypt hashes, a login form and a session.
 * Header mode: a reverse proxy that authenticated the person names them in a header, believed only
 * when the request comes from a configured proxy address; the role still comes from inbox_users.
 */
import '@fastify/session';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { verifyPassword } from '../adapters/bcrypt-password';
import type { InboxRole, InboxUsers } from '../adapters/mariadb/inbox-users';
import type { InboxConfig } from '../lib/inbox-config';

export interface Actor {
  name: string;
  role: InboxRole;
}

declare module 'fastify' {
  interface Session {
    user?: Actor;
    lang?: 'de' | 'en';
    flash?: { kind: 'ok' | 'refused'; message: string; newer?: { href: string; version: number } };
  }
  interface FastifyRequest {
    actor?: Actor;
  }
}

export async function checkPassword(users: InboxUsers, name: string, password: string): Promise<Actor | null> {
  const user = name ? await users.find(name) : null;
  const ok = await verifyPassword(password, user?.passwordHash);
  if (!user || !ok || user.disabledAt) return null;
  return { name: user.name, role: user.role };
}

function plainAddress(address: string | undefined): string {
  return (address ?? '').replace(/^::ffff:/, '');
}

/**
 * The person behind a request, or null. In header mode a session is still kept for the CSRF
 * secret and the language, but the name is re-read from the proxy on every request.
 */
export async function resolveActor(req: FastifyRequest, config: InboxConfig, users: InboxUsers): Promise<Actor | null | 'untrusted'> {
  if (config.auth === 'password') {
    const name = req.session.user?.name;
    // Re-read on every request: disabling a user or changing a role takes effect at once.
    const user = name ? await users.find(name) : null;
    return user && !user.disabledAt ? { name: user.name, role: user.role } : null;
  }
  const raw = req.headers[config.authHeader];
  const name = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!config.trustedProxies.includes(plainAddress(req.socket.remoteAddress))) return name ? 'untrusted' : null;
  if (!name) return null;
  const user = await users.find(name);
  if (user?.disabledAt) return null;
  // Known users keep their role; anyone else the proxy let in reviews (operators are listed).
  return { name, role: user?.role ?? 'reviewer' };
}

/** GET pages send the browser to the login form; every other method is refused with 401. */
export function refuseAnonymous(req: FastifyRequest, reply: FastifyReply, config: InboxConfig): FastifyReply {
  if (req.method === 'GET' && config.auth === 'password') return reply.redirect(`/login?next=${encodeURIComponent(req.url)}`, 303);
  return reply.code(401).type('text/plain; charset=utf-8').send('401: log in first');
}
