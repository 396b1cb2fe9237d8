import type * as OpenIdClient from 'openid-client' with { 'resolution-mode': 'import' };
import { FAILURE_TYPES } from '../platform/contract';
import { PermanentError, TransientError, errorMessage } from '../platform/errors';
import type { OAuthSettings } from './mailbox-oauth';

/** What a token endpoint answered, as far as a mailbox login needs it. */
export interface GrantedToken {
  accessToken: string;
  /** Seconds the token lives, when the endpoint said. */
  expiresIn?: number;
  /** A new refresh token, when the endpoint rotated it. */
  refreshToken?: string;
}

/** The secrets of one login, read by the caller from their references. */
export interface GrantSecrets {
  clientSecret?: string;
  refreshToken?: string;
  /** The service account's JSON key (google-service-account). */
  serviceAccountKey?: string;
}

/** openid-client and jose are ES modules only: loaded by import(), which a CommonJS build keeps as it is. */
export const openIdClient = (): Promise<typeof OpenIdClient> => import('openid-client');
const joseModule = () => import('jose');

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TIMEOUT_S = 30;

/** Plain http only towards this host itself (an identity provider beside the worker, or a test's). */
function insecureAllowed(url: string): boolean {
  const u = new URL(url);
  return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
}

/**
 * openid-client's view of the provider: the token endpoint as configured (no discovery needed),
 * or the issuer's discovery document for `oidc` with `issuer`.
 */
export async function oauthConfiguration(
  s: OAuthSettings,
  secrets: GrantSecrets,
  clientId = s.clientId,
): Promise<OpenIdClient.Configuration> {
  const client = await openIdClient();
  const auth = secrets.clientSecret ? client.ClientSecretPost(secrets.clientSecret) : client.None();
  const metadata = secrets.clientSecret ? { client_secret: secrets.clientSecret } : undefined;
  if (s.issuer) {
    const execute = insecureAllowed(s.issuer) ? [client.allowInsecureRequests] : [];
    return client.discovery(new URL(s.issuer), clientId, metadata, auth, { execute, timeout: TIMEOUT_S });
  }
  const tokenUrl = s.tokenUrl!;
  const config = new client.Configuration(
    { issuer: new URL(tokenUrl).origin, token_endpoint: tokenUrl, device_authorization_endpoint: s.deviceAuthorizationUrl },
    clientId,
    metadata,
    auth,
  );
  config.timeout = TIMEOUT_S;
  if (insecureAllowed(tokenUrl)) client.allowInsecureRequests(config);
  return config;
}

/** Asks the token endpoint for an access token by the login's grant. Errors are classified (see oauthFailure). */
export async function requestToken(s: OAuthSettings, user: string, secrets: GrantSecrets): Promise<GrantedToken> {
  const client = await openIdClient();
  const scope: Record<string, string> = s.scope ? { scope: s.scope } : {};
  let r: OpenIdClient.TokenEndpointResponse & OpenIdClient.TokenEndpointResponseHelpers;
  if (s.grant === 'client_credentials') {
    const config = await oauthConfiguration(s, secrets);
    r = await client.clientCredentialsGrant(config, scope);
  } else if (s.grant === 'refresh_token') {
    const config = await oauthConfiguration(s, secrets);
    r = await client.refreshTokenGrant(config, secrets.refreshToken ?? '', scope);
  } else {
    const key = serviceAccountKey(secrets.serviceAccountKey ?? '');
    const tokenUrl = s.tokenUrl ?? key.token_uri;
    const config = await oauthConfiguration({ ...s, tokenUrl }, {}, key.client_email);
    r = await client.genericGrantRequest(config, JWT_BEARER, { assertion: await assertion(key, tokenUrl!, s.subject ?? user, s.scope) });
  }
  return { accessToken: r.access_token, expiresIn: r.expiresIn(), refreshToken: r.refresh_token };
}

interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri?: string;
}

function serviceAccountKey(text: string): ServiceAccountKey {
  let key: Partial<ServiceAccountKey>;
  try {
    key = JSON.parse(text) as Partial<ServiceAccountKey>;
  } catch (err) {
    throw new PermanentError(`the service account key is not JSON: ${errorMessage(err)}`, FAILURE_TYPES.mailboxSecret);
  }
  if (typeof key.client_email !== 'string' || typeof key.private_key !== 'string')
    throw new PermanentError('the service account key has no client_email or private_key', FAILURE_TYPES.mailboxSecret);
  return key as ServiceAccountKey;
}

/** The RFC 7523 assertion Google expects: the service account as issuer, the mailbox user as subject. */
async function assertion(key: ServiceAccountKey, audience: string, subject: string, scope: string): Promise<string> {
  const { importPKCS8, SignJWT } = await joseModule();
  let pk: Awaited<ReturnType<typeof importPKCS8>>;
  try {
    pk = await importPKCS8(key.private_key, 'RS256');
  } catch (err) {
    throw new PermanentError(`the service account's private_key cannot be read: ${errorMessage(err)}`, FAILURE_TYPES.mailboxSecret);
  }
  return new SignJWT({ scope })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(key.private_key_id ? { kid: key.private_key_id } : {}) })
    .setIssuer(key.client_email)
    .setSubject(subject)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(pk);
}

/**
 * A refused grant (an OAuth error answer with a 4xx status: invalid_grant, invalid_client,
 * unauthorized_client, consent missing) will not heal by retrying: permanent MAILBOX_AUTH_EXPIRED
 * with the provider's error and description. A 5xx or an unreachable endpoint may heal: transient.
 * The message never holds a secret: only what the provider said.
 */
export function oauthFailure(err: unknown, where: string): Error {
  if (err instanceof PermanentError || err instanceof TransientError) return err;
  const body = err as { name?: string; status?: number; error?: string; error_description?: string };
  if (body.name === 'ResponseBodyError' && typeof body.status === 'number' && body.status < 500) {
    const said = `${body.error}${body.error_description ? `: ${body.error_description.slice(0, 300)}` : ''}`;
    return new PermanentError(
      `${where}: the identity provider refused the sign-in (${body.status} ${said})`,
      FAILURE_TYPES.mailboxAuthExpired,
      {
        cause: err,
      },
    );
  }
  const status = (err as { status?: unknown }).status;
  const cause = (err as { cause?: { code?: string } }).cause?.code;
  const detail = `${typeof status === 'number' ? `HTTP ${status}: ` : ''}${errorMessage(err)}${cause ? ` (${cause})` : ''}`;
  if (typeof status === 'number' && status < 500)
    return new PermanentError(`${where}: the token endpoint answered unexpectedly: ${detail}`, FAILURE_TYPES.mailboxAuthExpired, {
      cause: err,
    });
  return new TransientError(`${where}: the token endpoint is unavailable: ${detail}`, FAILURE_TYPES.transient, { cause: err });
}
