/** Settings of the review inbox (`email-rag inbox`), read with the rest of the configuration. */
import type { InboxRole } from './inbox-roles';
import type { SecretRef } from '../platform/secret-ref';
import { envValues, type Env } from '../platform/env-values';
import { trustedProxyProblem } from './trusted-proxies';

export type Priority = 'critical' | 'high' | 'normal' | 'low';

export interface InboxConfig {
  /** INBOX_PORT (default 8025) on INBOX_HOST (default 127.0.0.1). */
  port: number;
  host: string;
  /** INBOX_AUTH: `password` (inbox_users with bcrypt hashes) or `header` (a reverse proxy names the user). */
  auth: 'password' | 'header';
  /** INBOX_AUTH_HEADER: the header the proxy sets, only believed from INBOX_TRUSTED_PROXIES. */
  authHeader: string;
  /** INBOX_TRUSTED_PROXIES: addresses and CIDR ranges (src/review-inbox/trusted-proxies.ts). */
  trustedProxies: string[];
  /** INBOX_SESSION_SECRET (at least 32 characters); without it a random one per start (sessions end on restart). */
  sessionSecret?: string;
  /** INBOX_COOKIE_SECURE: mark the session cookie Secure (set it behind TLS). */
  cookieSecure: boolean;
  /** INBOX_SESSION_HOURS (default 12): a session ends this long after sign-in, however busy. */
  sessionHours: number;
  /** INBOX_SESSION_IDLE_MINUTES (default 60): a session no request used for this long ends. */
  sessionIdleMinutes: number;
  /** INBOX_SLA_MINUTES_CRITICAL/HIGH/NORMAL/LOW: how long a draft may wait for a person. */
  slaMinutes: Record<Priority, number>;
  /** TEMPORAL_UI_URL: where each email links to its workflow page. */
  temporalUiUrl: string;
  /** INBOX_CLAIM_MINUTES: how long opening an email holds its case for the reviewer (default 5). */
  claimMinutes: number;
  /** Single sign-on with OpenID Connect (INBOX_OIDC_*); absent when INBOX_OIDC_ISSUER is not set. */
  oidc?: InboxOidcConfig;
  /** INBOX_LOCAL_USERS (default on): the name-and-password form of inbox_users beside single sign-on. */
  localUsers: boolean;
}

/** The review inbox's section of the configuration. */
export interface ReviewInboxConfig {
  /** The review inbox (INBOX_PORT, INBOX_AUTH, …). */
  inbox: InboxConfig;
}

export function readReviewInboxConfig(env: Env, problems: string[]): ReviewInboxConfig {
  return { inbox: readInboxConfig(env, problems) };
}

export function readInboxConfig(env: Env, problems: string[]): InboxConfig {
  const v = envValues(env, problems);
  const auth = v.either('INBOX_AUTH', 'password', 'header', 'password');
  const trustedProxies = (env.INBOX_TRUSTED_PROXIES ?? '127.0.0.1,::1')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const p of trustedProxies) {
    const problem = trustedProxyProblem(p);
    if (problem) problems.push(problem);
  }
  const secret = v.optional('INBOX_SESSION_SECRET');
  if (secret && secret.length < 32) problems.push('INBOX_SESSION_SECRET must have at least 32 characters');
  const cookieSecure = v.boolean('INBOX_COOKIE_SECURE', false);
  const ui = v.text('TEMPORAL_UI_URL', 'http://127.0.0.1:8233');
  const oidc = readInboxOidcConfig(env, problems);
  const localUsers = v.boolean('INBOX_LOCAL_USERS', true);
  if (!localUsers && !oidc) problems.push('INBOX_LOCAL_USERS=off needs single sign-on (INBOX_OIDC_ISSUER): nobody could sign in');
  if (!/^https?:\/\//.test(ui)) problems.push(`TEMPORAL_UI_URL must start with http:// or https://, got "${ui}"`);
  const sla = (name: string, fallback: number) => v.intInRange(name, fallback, 1, 100_000);
  return {
    port: v.intInRange('INBOX_PORT', 8025, 0, 65535),
    host: v.text('INBOX_HOST', '127.0.0.1'),
    auth,
    authHeader: v.text('INBOX_AUTH_HEADER', 'X-Forwarded-User').toLowerCase(),
    trustedProxies,
    ...(secret ? { sessionSecret: secret } : {}),
    cookieSecure,
    sessionHours: v.intInRange('INBOX_SESSION_HOURS', 12, 1, 720),
    sessionIdleMinutes: v.intInRange('INBOX_SESSION_IDLE_MINUTES', 60, 5, 43_200),
    slaMinutes: {
      critical: sla('INBOX_SLA_MINUTES_CRITICAL', 30),
      high: sla('INBOX_SLA_MINUTES_HIGH', 120),
      normal: sla('INBOX_SLA_MINUTES_NORMAL', 480),
      low: sla('INBOX_SLA_MINUTES_LOW', 1440),
    },
    temporalUiUrl: ui.replace(/(?<!\/)\/+$/, ''),
    claimMinutes: v.intInRange('INBOX_CLAIM_MINUTES', 5, 1, 240),
    ...(oidc ? { oidc } : {}),
    localUsers,
  };
}

/**
 * Single sign-on to the review inbox with OpenID Connect (authorization code with PKCE). On when
 * INBOX_OIDC_ISSUER is set; read with the rest of the inbox settings, every problem listed at once.
 */
export interface InboxOidcConfig {
  /** INBOX_OIDC_ISSUER: the provider's issuer URL (its discovery document is read at start). */
  issuer: string;
  /** INBOX_OIDC_CLIENT_ID, INBOX_OIDC_CLIENT_SECRET (a reference: `env:NAME` or `file:PATH`; none for a public client). */
  clientId: string;
  clientSecret?: SecretRef;
  /** INBOX_PUBLIC_URL: where people reach the inbox; the redirect URI is `<it>/auth/oidc/callback`. */
  publicUrl: string;
  /** INBOX_OIDC_SCOPES (default `openid profile email`). */
  scopes: string;
  /** INBOX_OIDC_NAME_CLAIM (default `preferred_username`; then `email`, then `sub`). */
  nameClaim: string;
  /** INBOX_OIDC_ROLE_CLAIM (default `groups`): the claim holding roles or groups (a list or one string). */
  roleClaim: string;
  /**
   * INBOX_OIDC_ROLE_MAP: `value=role,…` (e.g. `support-leads=operator,support=reviewer`). Without
   * a map, the values `reviewer` and `operator` are taken as they are. The highest role wins.
   */
  roleMap: Record<string, InboxRole>;
}

export function readInboxOidcConfig(env: Env, problems: string[]): InboxOidcConfig | undefined {
  const issuer = env.INBOX_OIDC_ISSUER?.trim();
  if (!issuer) return undefined;
  const url = (name: string, v: string | undefined) => {
    if (!v || !/^https?:\/\/[^/]/.test(v))
      problems.push(`${name} must be an http(s) URL${v ? `, got "${v}"` : ' (single sign-on needs it)'}`);
    return (v ?? '').replace(/(?<!\/)\/+$/, '');
  };
  const clientId = env.INBOX_OIDC_CLIENT_ID?.trim() ?? '';
  if (!clientId) problems.push('INBOX_OIDC_CLIENT_ID is required with INBOX_OIDC_ISSUER');
  const roleMap: Record<string, InboxRole> = {};
  for (const pair of (env.INBOX_OIDC_ROLE_MAP ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const at = pair.lastIndexOf('=');
    const value = pair.slice(0, at).trim();
    const role = pair.slice(at + 1).trim();
    if (at < 1 || !value || (role !== 'reviewer' && role !== 'operator')) {
      problems.push(`INBOX_OIDC_ROLE_MAP: "${pair}" is not value=reviewer or value=operator`);
      continue;
    }
    roleMap[value] = role;
  }
  const secret = envValues(env, problems).secretRef('INBOX_OIDC_CLIENT_SECRET');
  return {
    issuer: url('INBOX_OIDC_ISSUER', issuer),
    clientId,
    ...(secret ? { clientSecret: secret } : {}),
    publicUrl: url('INBOX_PUBLIC_URL', env.INBOX_PUBLIC_URL?.trim()),
    scopes: env.INBOX_OIDC_SCOPES?.trim() || 'openid profile email',
    nameClaim: env.INBOX_OIDC_NAME_CLAIM?.trim() || 'preferred_username',
    roleClaim: env.INBOX_OIDC_ROLE_CLAIM?.trim() || 'groups',
    roleMap,
  };
}

// This feature's section of the whole configuration (src/platform/config.ts).
declare module '../platform/config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged into the whole configuration
  interface Config extends ReviewInboxConfig {}
}
