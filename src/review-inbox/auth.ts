/**
 * Who is acting. Password mode: inbox_users with bcrypt hashes, a login form and a session.
 * Header mode: a reverse proxy that authenticated the person names them in a header, believed only
 * when the request comes from a configured proxy address; the role still comes from inbox_users.
 */
import '@fastify/session';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InboxRole, InboxUsers } from './inbox-users.mariadb';
import type { InboxConfig } from './review-inbox.config';
import { isTrustedProxy } from './trusted-proxies';

export interface Actor {
  name: string;
  role: InboxRole;
}

declare module 'fastify' {
  interface Session {
    user?: Actor;
    /** Where and how the sign-in happened (its address and user agent are columns of the session's row). */
    signIn?: { at: number; address: string; agent: string; via?: 'password' | 'oidc' };
    /** Single sign-on between the redirect to the provider and its callback. */
    oidc?: { verifier: string; state: string; nonce: string; next: string };
    /** The provider's ID token of this session, sent back as id_token_hint at logout. */
    idToken?: string;
    lang?: 'de' | 'en';
    flash?: { kind: 'ok' | 'refused'; message: string; newer?: { href: string; version: number } };
  }
  interface FastifyRequest {
    actor?: Actor;
  }
}

export function plainAddress(address: string | undefined): string {
  return (address ?? '').replace(/^::ffff:/, '');
}

/**
 * The client's address: the peer, or, when the peer is a trusted proxy, the last address it
 * added to X-Forwarded-For (anything before that the client could have written itself).
 */
export function clientAddress(req: FastifyRequest, config: InboxConfig): string {
  const peer = plainAddress(req.socket.remoteAddress);
  const raw = req.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(raw) ? raw.join(',') : raw)?.split(',').at(-1)?.trim();
  return isTrustedProxy(config.trustedProxies, peer) && forwarded ? plainAddress(forwarded).slice(0, 45) : peer || 'unknown';
}

/**
 * The person behind a request, or null. In header mode a session is still kept for the CSRF
 * secret and the language, but the name is re-read from the proxy on every request.
 */
export async function resolveActor(req: FastifyRequest, config: InboxConfig, users: InboxUsers): Promise<Actor | null | 'untrusted'> {
  if (config.auth === 'password') {
    const signed = req.session.user;
    if (!signed) return null;
    // Re-read on every request: a user disabled or given another role since the sign-in is out at
    // once, even where their sessions were not ended (an UPDATE by hand): the session is dropped.
    const user = await users.find(signed.name);
    // A single sign-on keeps the role the provider gave at login; a local row can still disable the name.
    if (req.session.signIn?.via === 'oidc' && !user?.disabledAt) return signed;
    if (user && !user.disabledAt && user.role === signed.role) return { name: user.name, role: user.role };
    const lang = req.session.lang;
    await req.session.regenerate();
    if (lang) req.session.lang = lang;
    return null;
  }
  const raw = req.headers[config.authHeader];
  const name = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!isTrustedProxy(config.trustedProxies, plainAddress(req.socket.remoteAddress))) return name ? 'untrusted' : null;
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
