/** Settings of the review inbox (`email-rag inbox`), read with the rest of the configuration. */
import { isIP } from 'node:net';
import type { InboxRole } from './inbox-roles';
import type { SecretRef } from '../platform/secret-ref';

export type Priority = 'critical' | 'high' | 'normal' | 'low';

export interface InboxConfig {
  /** INBOX_PORT (default 8025) on INBOX_HOST (default 127.0.0.1). */
  port: number;
  host: string;
  /** INBOX_AUTH: `password` (inbox_users with bcrypt hashes) or `header` (a reverse proxy names the user). */
  auth: 'password' | 'header';
  /** INBOX_AUTH_HEADER: the header the proxy sets, only believed from INBOX_TRUSTED_PROXIES. */
  authHeader: string;
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
  /** INBOX_LOCAL_USERS (on|off, default on): the name-and-password form of inbox_users beside single sign-on. */
  localUsers: boolean;
}

type Env = Record<string, string | undefined>;

export function readInboxConfig(env: Env, problems: string[]): InboxConfig {
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be a whole number between ${min} and ${max}, got "${raw}"`);
      return fallback;
    }
    return n;
  };
  const auth = env.INBOX_AUTH?.trim().toLowerCase() || 'password';
  if (auth !== 'password' && auth !== 'header') problems.push(`INBOX_AUTH must be password or header, got "${auth}"`);
  const trustedProxies = (env.INBOX_TRUSTED_PROXIES ?? '127.0.0.1,::1')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const p of trustedProxies) if (!isIP(p)) problems.push(`INBOX_TRUSTED_PROXIES holds "${p}", not an IP address`);
  const secret = env.INBOX_SESSION_SECRET?.trim() || undefined;
  if (secret && secret.length < 32) problems.push('INBOX_SESSION_SECRET must have at least 32 characters');
  const secureRaw = env.INBOX_COOKIE_SECURE?.trim().toLowerCase();
  if (secureRaw && !['true', 'false', '1', '0', 'yes', 'no'].includes(secureRaw)) {
    problems.push(`INBOX_COOKIE_SECURE must be true or false, got "${secureRaw}"`);
  }
  const ui = env.TEMPORAL_UI_URL?.trim() || 'http://127.0.0.1:8233';
  const oidc = readInboxOidcConfig(env, problems);
  const local = env.INBOX_LOCAL_USERS?.trim().toLowerCase() || 'on';
  if (local !== 'on' && local !== 'off') problems.push(`INBOX_LOCAL_USERS must be on or off, got "${local}"`);
  if (local === 'off' && !oidc) problems.push('INBOX_LOCAL_USERS=off needs single sign-on (INBOX_OIDC_ISSUER): nobody could sign in');
  if (!/^https?:\/\//.test(ui)) problems.push(`TEMPORAL_UI_URL must start with http:// or https://, got "${ui}"`);
  return {
    port: int('INBOX_PORT', 8025, 0, 65535),
    host: env.INBOX_HOST?.trim() || '127.0.0.1',
    auth: auth === 'header' ? 'header' : 'password',
    authHeader: (env.INBOX_AUTH_HEADER?.trim() || 'X-Forwarded-User').toLowerCase(),
    trustedProxies,
    ...(secret ? { sessionSecret: secret } : {}),
    cookieSecure: ['true', '1', 'yes'].includes(secureRaw ?? ''),
    sessionHours: int('INBOX_SESSION_HOURS', 12, 1, 720),
    sessionIdleMinutes: int('INBOX_SESSION_IDLE_MINUTES', 60, 5, 43_200),
    slaMinutes: {
      critical: int('INBOX_SLA_MINUTES_CRITICAL', 30, 1, 100_000),
      high: int('INBOX_SLA_MINUTES_HIGH', 120, 1, 100_000),
      normal: int('INBOX_SLA_MINUTES_NORMAL', 480, 1, 100_000),
      low: int('INBOX_SLA_MINUTES_LOW', 1440, 1, 100_000),
    },
    temporalUiUrl: ui.replace(/\/+$/, ''),
    claimMinutes: int('INBOX_CLAIM_MINUTES', 5, 1, 240),
    ...(oidc ? { oidc } : {}),
    localUsers: local !== 'off',
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

/** A secret given in one variable by reference: `env:NAME`, `file:PATH` or `{"env":"NAME"}` / `{"file":"PATH"}`. */
export function parseSecretRefVar(name: string, raw: string, problems: string[]): SecretRef | undefined {
  const text = raw.trim();
  let ref: unknown;
  if (text.startsWith('{')) {
    try {
      ref = JSON.parse(text);
    } catch {
      ref = null;
    }
  } else {
    const m = /^(env|file):(.+)$/.exec(text);
    ref = m ? { [m[1]!]: m[2]!.trim() } : null;
  }
  const r = ref as Record<string, unknown> | null;
  if (r && Object.keys(r).length === 1 && typeof r.env === 'string' && /^[A-Z_][A-Z0-9_]*$/.test(r.env)) return { env: r.env };
  if (r && Object.keys(r).length === 1 && typeof r.file === 'string' && r.file) return { file: r.file };
  // A literal secret in the environment ends up in process listings and support dumps.
  problems.push(`${name} must reference the secret (env:VARIABLE or file:/path), not contain it`);
  return undefined;
}

export function readInboxOidcConfig(env: Env, problems: string[]): InboxOidcConfig | undefined {
  const issuer = env.INBOX_OIDC_ISSUER?.trim();
  if (!issuer) return undefined;
  const url = (name: string, v: string | undefined) => {
    if (!v || !/^https?:\/\/[^/]/.test(v))
      problems.push(`${name} must be an http(s) URL${v ? `, got "${v}"` : ' (single sign-on needs it)'}`);
    return (v ?? '').replace(/\/+$/, '');
  };
  const clientId = env.INBOX_OIDC_CLIENT_ID?.trim() ?? '';
  if (!clientId) problems.push('INBOX_OIDC_CLIENT_ID is required with INBOX_OIDC_ISSUER');
  const secretRaw = env.INBOX_OIDC_CLIENT_SECRET?.trim();
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
  const secret = secretRaw ? parseSecretRefVar('INBOX_OIDC_CLIENT_SECRET', secretRaw, problems) : undefined;
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
