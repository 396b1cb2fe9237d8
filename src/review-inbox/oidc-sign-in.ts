/**
 * The review inbox's single sign-on with OpenID Connect, through openid-client: authorization
 * code with PKCE (S256), state and nonce; the ID token's signature, issuer, audience, expiry and
 * nonce are checked by openid-client. The provider's discovery document is read at the first
 * sign-in and kept (a provider that is down at start costs that sign-in, not the inbox).
 */
import type * as OpenIdClient from 'openid-client' with { 'resolution-mode': 'import' };
import { errorMessage } from '../platform/errors';
import { openIdClient } from '../mailboxes';

export interface OidcSignInSettings {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  redirectUri: string;
  scopes: string;
}

/** What the browser must bring back: kept in the (server-side) session between the two requests. */
export interface OidcPending {
  verifier: string;
  state: string;
  nonce: string;
}

export class OidcSignInError extends Error {
  readonly code = 'INBOX_SSO_REFUSED';
}

/** Plain http only towards this host itself (a provider beside the inbox, or a test's). */
function localHttp(url: string): boolean {
  const u = new URL(url);
  return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
}

export function createOidcSignIn(s: OidcSignInSettings) {
  let configuration: Promise<OpenIdClient.Configuration> | undefined;
  const config = () => {
    configuration ??= (async () => {
      const client = await openIdClient();
      const auth = s.clientSecret ? client.ClientSecretBasic(s.clientSecret) : client.None();
      // ID token signatures are checked against the provider's keys too, not only trusted for
      // coming over TLS from the token endpoint: a token altered on the way is refused.
      const execute = [client.enableNonRepudiationChecks, ...(localHttp(s.issuer) ? [client.allowInsecureRequests] : [])];
      return client.discovery(new URL(s.issuer), s.clientId, s.clientSecret ? { client_secret: s.clientSecret } : undefined, auth, {
        execute,
        timeout: 15,
      });
    })();
    // A failed discovery is tried again at the next sign-in.
    configuration.catch(() => (configuration = undefined));
    return configuration;
  };

  return {
    /** The provider's authorization URL for a new sign-in, and what to keep until the callback. */
    async start(): Promise<{ url: string; pending: OidcPending }> {
      const client = await openIdClient();
      const c = await config().catch((err: unknown) => {
        throw new OidcSignInError(`the identity provider ${s.issuer} cannot be reached: ${errorMessage(err)}`);
      });
      const pending = { verifier: client.randomPKCECodeVerifier(), state: client.randomState(), nonce: client.randomNonce() };
      const url = client.buildAuthorizationUrl(c, {
        redirect_uri: s.redirectUri,
        scope: s.scopes,
        code_challenge: await client.calculatePKCECodeChallenge(pending.verifier),
        code_challenge_method: 'S256',
        state: pending.state,
        nonce: pending.nonce,
      });
      return { url: url.href, pending };
    },

    /** Redeems the code of the callback URL; the ID token's claims, or OidcSignInError with the reason. */
    async finish(callbackUrl: URL, pending: OidcPending): Promise<{ claims: Record<string, unknown>; idToken: string }> {
      const client = await openIdClient();
      try {
        const tokens = await client.authorizationCodeGrant(await config(), callbackUrl, {
          pkceCodeVerifier: pending.verifier,
          expectedState: pending.state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        });
        const claims = tokens.claims();
        if (!claims || !tokens.id_token) throw new Error('no ID token');
        return { claims: { ...claims } as Record<string, unknown>, idToken: tokens.id_token };
      } catch (err) {
        const e = err as { code?: string; error?: string; error_description?: string; cause?: unknown };
        // openid-client's message is generic ("invalid response encountered"); the one of its cause
        // names what failed (the "state" parameter, the "nonce" claim, the signature…).
        const inner = e.cause instanceof Error && e.cause.message !== errorMessage(err) ? e.cause.message : undefined;
        throw new OidcSignInError(
          `single sign-on refused: ${[e.code, e.error, e.error_description, errorMessage(err), inner].filter(Boolean).join(': ')}`,
        );
      }
    },

    /** RP-initiated logout at the provider, when it offers it (end_session_endpoint); null otherwise. */
    async logoutUrl(idToken: string | undefined, postLogoutRedirectUri: string): Promise<string | null> {
      const c = await config().catch(() => null);
      if (!c?.serverMetadata().end_session_endpoint) return null;
      const client = await openIdClient();
      return client.buildEndSessionUrl(c, {
        ...(idToken ? { id_token_hint: idToken } : { client_id: s.clientId }),
        post_logout_redirect_uri: postLogoutRedirectUri,
      }).href;
    },
  };
}
export type OidcSignIn = ReturnType<typeof createOidcSignIn>;
