/**
 * A real OpenID provider for tests (the `oidc-provider` library) on a free port: one confidential
 * client, PKCE required, RP-initiated logout, its development login form (any password; the login
 * name is the account), and accounts whose claims the test sets and changes. The token endpoint
 * can be told to hand out a bad ID token once: tampered (a claim changed, signature left), expired
 * or with another nonce (both properly signed with the provider's own key).
 */
import http from 'node:http';
import { freePort } from './ports';

export type TokenMischief = 'tamper' | 'expire' | 'nonce';

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Claims per login name (sub = the name); change them to change what the next login gets. */
  accounts: Map<string, Record<string, unknown>>;
  /** The next ID token the token endpoint hands out is spoilt this way. */
  spoilNextIdToken(how: TokenMischief): void;
  stop(): Promise<void>;
}

/** `redirectBase`: the inbox's public URL (its callback and post-logout URIs are registered). */
export async function startOidcProvider(redirectBase: string): Promise<TestOidcProvider> {
  const { default: Provider } = await import('oidc-provider');
  const jose = await import('jose');
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await jose.exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const accounts = new Map<string, Record<string, unknown>>();
  const clientId = 'email-rag-inbox';
  const clientSecret = 'test-client-secret-of-some-length';
  let mischief: TokenMischief | null = null;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [`${redirectBase}/auth/oidc/callback`],
        post_logout_redirect_uris: [`${redirectBase}/login`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: ['test cookie key of the provider'] },
    scopes: ['openid', 'profile', 'email', 'groups'],
    claims: { openid: ['sub'], profile: ['preferred_username', 'name'], email: ['email'], groups: ['groups'] },
    // The claims go into the ID token (the inbox reads only that), not only to the userinfo endpoint.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    pkce: { required: () => true },
    findAccount: (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: () => ({ sub, ...(accounts.get(sub) ?? {}) }),
    }),
    // Consent is given once and for all: the test is about the inbox, not the provider's screens.
    async loadExistingGrant(ctx: {
      oidc: {
        client: { clientId: string };
        session: { accountId: string; grantIdFor(id: string): string | undefined };
        provider: {
          Grant: { find(id: string): Promise<unknown> } & (new (o: object) => { addOIDCScope(s: string): void; save(): Promise<unknown> });
        };
      };
    }) {
      const { client, session, provider: p } = ctx.oidc;
      const existing = session.grantIdFor(client.clientId);
      if (existing) return p.Grant.find(existing);
      const grant = new p.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope('openid profile email groups');
      await grant.save();
      return grant;
    },
  } as never);

  const spoil = async (idToken: string, how: TokenMischief): Promise<string> => {
    const [header, payload, signature] = idToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (how === 'tamper') {
      const changed = Buffer.from(JSON.stringify({ ...claims, groups: ['email-rag-operators'] })).toString('base64url');
      return `${header}.${changed}.${signature}`;
    }
    const now = Math.floor(Date.now() / 1000);
    const next = how === 'expire' ? { ...claims, iat: now - 7200, exp: now - 3600 } : { ...claims, nonce: 'a-nonce-of-another-sign-in' };
    return new jose.SignJWT(next).setProtectedHeader({ alg: 'RS256', kid: 'test-key', typ: 'JWT' }).sign(privateKey);
  };
  provider.use(async (ctx: { path: string; body: unknown }, next: () => Promise<void>) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path === '/token' && mischief && body?.id_token) {
      const how = mischief;
      mischief = null;
      ctx.body = { ...body, id_token: await spoil(body.id_token, how) };
    }
  });

  const server = http.createServer(provider.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    spoilNextIdToken(how) {
      mischief = how;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
