/**
 * Single sign-on routes: /auth/oidc/login sends the browser to the provider (PKCE, state and nonce
 * kept in the server-side session), /auth/oidc/callback redeems the code, checks the ID token and
 * maps its claims to a role. A person without a mapped role is refused; every refusal is audited.
 */
import { OidcSignInError, type OidcSignIn } from './oidc-sign-in';
import { type LoginRefusalReason, REVIEW_INBOX_AUDIT_EVENTS } from './review-inbox.contract';
import type { InboxOidcConfig } from './review-inbox.config';
import { roleFromClaims } from './inbox-roles';
import { clientAddress } from './auth';
import type { InboxContext } from './inbox-context';

function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/(?![/\\])/.test(next) ? next : '/';
}

/** The person's name from the configured claim, then e-mail, then subject. */
function nameFrom(claims: Record<string, unknown>, claim: string): string {
  for (const key of [claim, 'email', 'sub']) {
    const v = claims[key];
    if (typeof v === 'string' && v.trim()) return v.trim().slice(0, 191);
  }
  return '';
}

export function registerOidcRoutes({ app, deps, page, audit }: InboxContext, sso: OidcSignIn, oidc: InboxOidcConfig): void {
  const refuse = async (
    req: Parameters<InboxContext['page']>[0],
    reply: Parameters<InboxContext['page']>[1],
    reason: LoginRefusalReason,
    who: string,
    why: string,
  ) => {
    const address = clientAddress(req, deps.config.inbox);
    await audit.record({
      emailId: null,
      correlationId: `inbox-login-${who || 'sso'}`.slice(0, 191),
      eventType: REVIEW_INBOX_AUDIT_EVENTS.loginRefused,
      actor: who || null,
      message: `review inbox single sign-on${who ? ` as ${JSON.stringify(who)}` : ''} from ${address} refused: ${reason}: ${why}`.slice(
        0,
        2000,
      ),
      details: { reason, address, issuer: oidc.issuer },
    });
    return page(req, reply.code(403), 'login', { next: '/', failed: false, ssoRefused: reason });
  };

  app.get('/auth/oidc/login', async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    try {
      const { url, pending } = await sso.start();
      req.session.oidc = { ...pending, next: safeNext(q.next) };
      return reply.redirect(url, 303);
    } catch (err) {
      if (!(err instanceof OidcSignInError)) throw err;
      return refuse(req, reply, 'sso_invalid', '', err.message);
    }
  });

  app.get('/auth/oidc/callback', async (req, reply) => {
    const pending = req.session.oidc;
    // Used once: a replayed or second callback finds nothing to compare with.
    req.session.oidc = undefined;
    const q = req.query as Record<string, unknown>;
    if (!pending) return refuse(req, reply, 'sso_invalid', '', 'no sign-in was started in this browser session');
    if (typeof q.error === 'string') return refuse(req, reply, 'sso_invalid', '', `the provider answered ${q.error}`);
    let signed: Awaited<ReturnType<OidcSignIn['finish']>>;
    try {
      signed = await sso.finish(new URL(req.url, `${oidc.publicUrl}/`), pending);
    } catch (err) {
      if (!(err instanceof OidcSignInError)) throw err;
      return refuse(req, reply, 'sso_invalid', '', err.message);
    }
    const name = nameFrom(signed.claims, oidc.nameClaim);
    const role = roleFromClaims(signed.claims, oidc.roleClaim, oidc.roleMap);
    if (!name) return refuse(req, reply, 'sso_invalid', '', `the ID token names nobody (${oidc.nameClaim}, email, sub)`);
    if (!role) return refuse(req, reply, 'sso_no_role', name, `no inbox role in the claim ${oidc.roleClaim}`);
    const local = await deps.users.find(name);
    if (local?.disabledAt) return refuse(req, reply, 'sso_no_role', name, 'the name is disabled in inbox_users');
    const lang = req.session.lang;
    await req.session.regenerate();
    req.session.user = { name, role };
    req.session.signIn = {
      at: Date.now(),
      address: clientAddress(req, deps.config.inbox),
      agent: String(req.headers['user-agent'] ?? ''),
      via: 'oidc',
    };
    req.session.idToken = signed.idToken;
    if (lang) req.session.lang = lang;
    return reply.redirect(pending.next, 303);
  });
}
