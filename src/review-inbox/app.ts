/**
 * The review inbox as a fastify app: server-rendered nunjucks pages (autoescape on), sessions,
 * CSRF tokens on every form, no client-side script at all (the Content-Security-Policy forbids it).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import fastifySession from '@fastify/session';
import fastifyView from '@fastify/view';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import nunjucks from 'nunjucks';
import { createMariaDbSessionStore } from './session-store.mariadb';
import { createMariaDbAuditLog } from '../platform/audit-log.mariadb';
import { createMariaDbLoginThrottle } from './login-throttle.mariadb';
import { createLoginBurstLimiter } from './login-burst-limiter';
import { LOGIN_THROTTLE } from './login-throttle-policy';
import type { InboxDeps } from './inbox-context';
import { createLoginGuard } from './login-guard';
import { createOidcSignIn } from './oidc-sign-in';
import { registerOidcRoutes } from './oidc.routes';
import { refuseAnonymous, resolveActor } from './auth';
import { LANGS, pickLanguage, TEXTS, type Lang } from './i18n';
import { registerAuthRoutes } from './auth.routes';
import { registerCaseRoutes } from './cases.routes';
import { registerAutonomyRoutes } from './autonomy.routes';
import { registerGuidanceRoutes } from './guidance.routes';
import { registerReplayRoutes } from './replay.routes';
import { registerShadowRoutes } from './shadow.routes';
import { registerPairRatingRoutes } from './pair-ratings.routes';
import { registerOperationsRoutes } from './operations.routes';
import { registerQueueRoutes } from './review-queue.routes';
import { registerReviewRoutes } from './review.routes';
import { registerSpamRoutes } from './spam.routes';
import { registerAttachmentRoutes } from './attachments.routes';
import { createStructuredLogger } from '../platform/logger';
import { echoRequestId, requestLogOptions } from '../platform/request-log.http';
import { LEGACY_LIVE_PATHS, checkReadiness } from '../operations';
import { databaseProbe, healthPaths, registerHealthRoutes } from '../operations/index.adapters';

/** With single sign-on the logout form may lead on to the provider's logout page (RP-initiated logout). */
const csp = (provider?: string) =>
  [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self'",
    `form-action 'self'${provider ? ` ${new URL(provider).origin}` : ''}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');

const PUBLIC = new Set(['/login', '/inbox.css', ...healthPaths(LEGACY_LIVE_PATHS.inbox), '/auth/oidc/login', '/auth/oidc/callback']);
/** Asked for all the time (by every page, by probes and Prometheus): their access lines are `debug`. */
const QUIET = ['/inbox.css', ...healthPaths(LEGACY_LIVE_PATHS.inbox)];

export async function buildInboxApp(deps: InboxDeps): Promise<FastifyInstance> {
  const cfg = deps.config.inbox;
  const logger = createStructuredLogger('review-inbox', { level: deps.config.logLevel, destination: deps.logDestination });
  const app = Fastify({ ...requestLogOptions(logger, { quietRoutes: QUIET, user: (req) => req.actor?.name }), bodyLimit: 1024 * 1024 });
  echoRequestId(app);
  const sessions =
    deps.sessions ?? createMariaDbSessionStore(deps.pool, { idleMinutes: cfg.sessionIdleMinutes, maxHours: cfg.sessionHours });
  await app.register(fastifyFormbody);
  await app.register(fastifyCookie);
  await app.register(fastifySession, {
    // Processes that share sessions must share this secret (the cookie carries a signed id).
    secret: cfg.sessionSecret ?? randomBytes(32).toString('hex'),
    cookieName: 'inbox_session',
    store: sessions.fastifyStore,
    saveUninitialized: false,
    // Saved only when changed: a click is a read; the idle clock is the row's last_seen_at.
    rolling: false,
    cookie: { httpOnly: true, sameSite: 'lax', secure: cfg.cookieSecure, path: '/', maxAge: cfg.sessionHours * 3600 * 1000 },
  });
  await app.register(fastifyCsrf, { sessionPlugin: '@fastify/session' });
  await app.register(fastifyView, {
    engine: { nunjucks },
    root: path.join(__dirname, 'views'),
    viewExt: 'njk',
    options: { autoescape: true, throwOnUndefined: false },
  });
  const css = readFileSync(path.join(__dirname, 'views', 'inbox.css'), 'utf8');

  const CSP = csp(cfg.oidc?.issuer);
  app.addHook('onSend', async (_req, reply) => {
    reply.header('Content-Security-Policy', CSP);
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('X-Frame-Options', 'DENY');
    reply.header('Cache-Control', 'no-store');
  });

  // Language: ?lang= switches and is remembered in the session; otherwise Accept-Language.
  app.addHook('preHandler', async (req) => {
    const wanted = (req.query as Record<string, unknown> | undefined)?.lang;
    if (typeof wanted === 'string' && (LANGS as readonly string[]).includes(wanted)) req.session.lang = wanted as Lang;
  });

  app.addHook('preHandler', async (req, reply) => {
    const route = req.routeOptions.url ?? req.url;
    if (PUBLIC.has(route)) return;
    const actor = await resolveActor(req, cfg, deps.users);
    if (actor === 'untrusted')
      return reply.code(403).type('text/plain; charset=utf-8').send('403: the auth header is only accepted from a trusted proxy');
    if (!actor) return refuseAnonymous(req, reply, cfg);
    req.actor = actor;
  });

  // Every form post carries the session's CSRF token (a cross-site post has none).
  app.addHook('preHandler', (req, reply, done) => {
    if (req.method === 'GET' || req.method === 'HEAD') return done();
    app.csrfProtection(req, reply, done);
  });

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    const code = err.statusCode && err.statusCode >= 400 ? err.statusCode : 500;
    if (code >= 500) req.log.error({ err }, 'request failed');
    // The request id lets the person quote the failure and the operator find its log lines.
    void reply
      .code(code)
      .type('text/plain; charset=utf-8')
      .send(
        `${code}: ${code === 403 && err.code?.startsWith('FST_CSRF') ? 'invalid or missing CSRF token' : code >= 500 ? 'internal error' : err.message} (request ${req.id})`,
      );
  });
  app.setNotFoundHandler((req, reply) => reply.code(404).type('text/plain; charset=utf-8').send(`404: not found (request ${req.id})`));

  app.get('/inbox.css', async (_req, reply) => reply.type('text/css; charset=utf-8').send(css));
  // Without its probes (an app built in a test) readiness asks the database only.
  const probes = deps.readiness ?? [databaseProbe(deps.pool, deps.config.databaseUrl)];
  registerHealthRoutes(app, { legacyLivePath: LEGACY_LIVE_PATHS.inbox, readiness: () => checkReadiness(probes) });

  const page = async (req: FastifyRequest, reply: FastifyReply, view: string, data: Record<string, unknown>) => {
    const lang = req.session.lang ?? pickLanguage(req.headers['accept-language']);
    const flash = req.session.flash;
    if (flash) req.session.flash = undefined;
    const here = req.url.replace(/([?&])lang=[^&]*&?/, '$1').replace(/[?&]$/, '');
    const sep = here.includes('?') ? '&' : '?';
    return reply.type('text/html; charset=utf-8').view(view, {
      t: TEXTS[lang],
      lang,
      actor: req.actor,
      csrf: await reply.generateCsrf(),
      flash,
      langLinks: LANGS.map((l) => ({ lang: l, href: `${here}${sep}lang=${l}`, current: l === lang })),
      signInWith: { sso: Boolean(cfg.oidc), local: cfg.localUsers },
      ...data,
    });
  };
  const audit = createMariaDbAuditLog(deps.pool);
  const guard = createLoginGuard({
    users: deps.users,
    throttle: createMariaDbLoginThrottle(deps.pool),
    burst: createLoginBurstLimiter(LOGIN_THROTTLE.burstPerMinute),
    audit,
  });
  const oidc = cfg.oidc;
  const sso = oidc
    ? createOidcSignIn({
        issuer: oidc.issuer,
        clientId: oidc.clientId,
        ...(oidc.clientSecret ? { clientSecret: deps.config.readSecret(oidc.clientSecret) } : {}),
        redirectUri: `${oidc.publicUrl}/auth/oidc/callback`,
        scopes: oidc.scopes,
      })
    : undefined;
  const ctx = { app, deps, page, sessions, guard, audit, sso };
  registerAuthRoutes(ctx);
  if (sso && oidc) registerOidcRoutes(ctx, sso, oidc);
  registerQueueRoutes(ctx);
  registerReviewRoutes(ctx);
  registerCaseRoutes(ctx);
  registerAttachmentRoutes(ctx);
  registerOperationsRoutes(ctx);
  registerSpamRoutes(ctx);
  registerAutonomyRoutes(ctx);
  registerGuidanceRoutes(ctx);
  registerReplayRoutes(ctx);
  registerShadowRoutes(ctx);
  registerPairRatingRoutes(ctx);
  return app;
}
