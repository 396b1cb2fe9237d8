/**
 * Single sign-on to the review inbox with OpenID Connect (authorization code with PKCE). On when
 * INBOX_OIDC_ISSUER is set; read with the rest of the inbox settings, every problem listed at once.
 */
import type { InboxRole } from './inbox-roles';
import type { SecretRef } from '../platform/secret-ref';

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

type Env = Record<string, string | undefined>;

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
