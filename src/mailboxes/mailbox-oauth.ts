import type { SecretRef } from '../platform/secret-ref';

/** Identity providers a mailbox can sign in with; each fixes its grant and default endpoints. */
export const OAUTH_PROVIDERS = [
  /** Microsoft 365, app-only (client credentials): shared mailboxes such as support@. */
  'microsoft-app',
  /** Microsoft 365, a user's delegated refresh token (from `email-rag mailboxes authorize`). */
  'microsoft-delegated',
  /** Gmail / Google Workspace, an installed app's refresh token. */
  'google',
  /** Google Workspace, a service account with domain-wide delegation (JWT bearer grant, RFC 7523). */
  'google-service-account',
  /** Any OAuth2 / OpenID Connect token endpoint, by URL or by issuer (discovery). */
  'oidc',
] as const;
export type OAuthProvider = (typeof OAUTH_PROVIDERS)[number];

export type OAuthGrant = 'client_credentials' | 'refresh_token' | 'jwt_bearer';
/** SASL mechanism of the login: Google and Microsoft speak XOAUTH2; OAUTHBEARER is RFC 7628. */
export type OAuthMechanism = 'XOAUTH2' | 'OAUTHBEARER';

/** How one login (IMAP or SMTP) of a mailbox gets its access token. */
export interface OAuthSettings {
  provider: OAuthProvider;
  grant: OAuthGrant;
  mechanism: OAuthMechanism;
  /** Token endpoint; absent only for `oidc` with an issuer (found by discovery). */
  tokenUrl?: string;
  issuer?: string;
  /** Device authorization endpoint for `email-rag mailboxes authorize` (refresh-token providers). */
  deviceAuthorizationUrl?: string;
  clientId: string;
  clientSecret?: SecretRef;
  refreshToken?: SecretRef;
  /** The service account's JSON key (google-service-account). */
  serviceAccountKey?: SecretRef;
  scope: string;
  /** The mailbox user a service account acts for (`sub` of the assertion); defaults to the login user. */
  subject?: string;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const MS_LOGIN = 'https://login.microsoftonline.com';
const GOOGLE_TOKEN = 'https://oauth2.googleapis.com/token';

/** Provider defaults; `tenant` is Microsoft's directory (domain or GUID). */
function defaults(provider: OAuthProvider, tenant: string): Partial<OAuthSettings> & { grant: OAuthGrant } {
  switch (provider) {
    case 'microsoft-app':
      return {
        grant: 'client_credentials',
        tokenUrl: `${MS_LOGIN}/${tenant}/oauth2/v2.0/token`,
        scope: 'https://outlook.office365.com/.default',
      };
    case 'microsoft-delegated':
      return {
        grant: 'refresh_token',
        tokenUrl: `${MS_LOGIN}/${tenant}/oauth2/v2.0/token`,
        deviceAuthorizationUrl: `${MS_LOGIN}/${tenant}/oauth2/v2.0/devicecode`,
        scope: 'https://outlook.office.com/IMAP.AccessAsUser.All https://outlook.office.com/SMTP.Send offline_access',
      };
    case 'google':
      return {
        grant: 'refresh_token',
        tokenUrl: GOOGLE_TOKEN,
        deviceAuthorizationUrl: 'https://oauth2.googleapis.com/device/code',
        scope: 'https://mail.google.com/',
      };
    case 'google-service-account':
      return { grant: 'jwt_bearer', tokenUrl: GOOGLE_TOKEN, scope: 'https://mail.google.com/' };
    case 'oidc':
      return { grant: 'client_credentials', scope: '' };
  }
}

/** The fields of an OAuth2 sign-in (`auth: { type: oauth2, … }`), for the registry's schema. */
export const OAUTH_FIELDS = [
  'provider',
  'mechanism',
  'tenant',
  'tokenUrl',
  'issuer',
  'deviceAuthorizationUrl',
  'clientId',
  'clientSecret',
  'refreshToken',
  'serviceAccountKey',
  'scope',
  'subject',
  'grant',
] as const;

/** What the registry parser lends this one: its problem sink and secret reader. */
export interface AuthFieldReader {
  problem(p: string): void;
  optSecret(o: Record<string, unknown>, name: string): SecretRef | undefined;
}

/**
 * Reads `imap.auth` / `smtp.auth` with `type: oauth2`. Every problem is reported through `f`
 * (prefixed with the field's path), so a bad entry lists all of them at once; unknown fields are
 * the registry schema's (src/mailboxes/mailbox-registry-schema.ts).
 */
export function parseOAuthSettings(o: Record<string, unknown>, where: string, f: AuthFieldReader): OAuthSettings | undefined {
  const bad = (p: string) => f.problem(`.${where}.${p}`);
  const provider = o.provider as OAuthProvider;
  if (!OAUTH_PROVIDERS.includes(provider)) {
    bad(`provider must be one of ${OAUTH_PROVIDERS.join(', ')}, got ${JSON.stringify(o.provider)}`);
    return undefined;
  }
  const str = (k: string): string | undefined => {
    const v = o[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string' && v.trim()) return v.trim();
    bad(`${k} must be a non-empty string`);
    return undefined;
  };
  const url = (k: string): string | undefined => {
    const v = str(k);
    if (v === undefined) return undefined;
    // Tokens and secrets cross this connection: https, or http to this host only (a local provider).
    const u = URL.canParse(v) ? new URL(v) : undefined;
    if (u && (u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK.has(u.hostname)))) return u.toString();
    bad(`${k} must be an https URL (http only to 127.0.0.1 or localhost), got ${JSON.stringify(v)}`);
    return undefined;
  };
  const secret = (k: string) => f.optSecret(o, `${where}.${k}`);
  const tenant = str('tenant');
  const isMicrosoft = provider.startsWith('microsoft');
  if (isMicrosoft && !tenant) bad('tenant is required for Microsoft 365 (the directory domain or id)');
  const mechanism = o.mechanism === undefined ? 'XOAUTH2' : o.mechanism;
  if (mechanism !== 'XOAUTH2' && mechanism !== 'OAUTHBEARER')
    bad(`mechanism must be XOAUTH2 or OAUTHBEARER, got ${JSON.stringify(o.mechanism)}`);
  const d = defaults(provider, tenant ?? '');
  const grant = provider === 'oidc' ? (str('grant') ?? d.grant) : d.grant;
  if (provider !== 'oidc' && o.grant !== undefined) bad(`grant is fixed by provider ${provider}; leave it out`);
  if (provider === 'oidc' && grant !== 'client_credentials' && grant !== 'refresh_token')
    bad(`grant must be client_credentials or refresh_token, got ${JSON.stringify(grant)}`);
  const s: OAuthSettings = {
    provider,
    grant: grant as OAuthGrant,
    mechanism: mechanism === 'OAUTHBEARER' ? 'OAUTHBEARER' : 'XOAUTH2',
    tokenUrl: url('tokenUrl') ?? d.tokenUrl,
    issuer: url('issuer'),
    deviceAuthorizationUrl: url('deviceAuthorizationUrl') ?? d.deviceAuthorizationUrl,
    clientId: str('clientId') ?? '',
    clientSecret: secret('clientSecret'),
    refreshToken: secret('refreshToken'),
    serviceAccountKey: secret('serviceAccountKey'),
    scope: str('scope') ?? d.scope ?? '',
    subject: str('subject'),
  };
  requireFields(s, bad);
  return s;
}

function requireFields(s: OAuthSettings, bad: (p: string) => void): void {
  if (s.provider === 'oidc' && !s.tokenUrl && !s.issuer) bad('tokenUrl or issuer is required for provider oidc');
  if (s.provider === 'oidc' && s.tokenUrl && s.issuer) bad('give tokenUrl or issuer, not both');
  if (s.provider !== 'google-service-account' && !s.clientId) bad('clientId is required');
  if (s.grant === 'client_credentials' && !s.clientSecret)
    bad('clientSecret is required for app-only sign-in: { env: VARIABLE } or { file: path }');
  if (s.grant === 'refresh_token' && !s.refreshToken)
    bad('refreshToken is required: { file: path } (written by `email-rag mailboxes authorize`) or { env: VARIABLE }');
  if (s.grant !== 'refresh_token' && s.refreshToken) bad(`refreshToken is not used by provider ${s.provider}; leave it out`);
  if (s.provider === 'google' && !s.clientSecret) bad("clientSecret is required for Google (the OAuth client's secret)");
  if (s.grant === 'jwt_bearer' && !s.serviceAccountKey) bad('serviceAccountKey is required: the JSON key of the service account');
  if (s.grant !== 'jwt_bearer' && s.serviceAccountKey) bad(`serviceAccountKey is only for google-service-account`);
  if (s.grant !== 'jwt_bearer' && s.subject) bad('subject is only for google-service-account');
}

/** How a sign-in reads in `mailboxes list` and logs: provider and secret references, never values. */
export function describeOAuth(s: OAuthSettings): string {
  return `OAuth2 ${s.provider} (${s.mechanism}, ${s.grant.replace('_', ' ')}, client ${s.clientId || 'from key'})`;
}
