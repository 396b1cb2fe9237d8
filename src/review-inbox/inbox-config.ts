/** Settings of the review inbox (`email-rag inbox`), read with the rest of the configuration. */
import { isIP } from 'node:net';
import { readInboxOidcConfig, type InboxOidcConfig } from './inbox-oidc-config';

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
