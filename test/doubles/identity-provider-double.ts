import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * DOUBLE of an OAuth2 identity provider (Microsoft Entra / Google / any OIDC server): the real
 * ones cannot be reached from a test machine. It serves a token endpoint (client_credentials,
 * refresh_token, RFC 7523 jwt-bearer, RFC 8628 device_code), a device authorization endpoint and
 * RFC 7662 introspection, which Dovecot's oauth2 passdb and the test SMTP listener ask. Tests can
 * revoke grants, shorten lifetimes, rotate refresh tokens, take the endpoint down and count calls.
 */
export interface IdentityProviderDouble {
  url: string;
  tokenUrl: string;
  deviceUrl: string;
  introspectionUrl: string;
  /**
   * A client; with a secret a confidential one. `appMailbox`: the mailbox an app-only client was
   * given FullAccess to (its client_credentials tokens introspect as that user).
   */
  addClient(clientId: string, secret?: string, appMailbox?: string): void;
  /** A refresh token issued to `user` (as an earlier consent would have). */
  issueRefreshToken(clientId: string, user: string): string;
  /** A service account whose key signs jwt-bearer assertions; returns its JSON key file text. */
  addServiceAccount(email: string): Promise<string>;
  /** Token endpoint answers `invalid_grant` for it from now on, and its access tokens stop working. */
  revokeRefreshToken(token: string): void;
  /** Every access token issued so far stops being active (as a provider-side revocation). */
  revokeAccessTokens(): void;
  /** Lifetime (s) of access tokens issued from now on. */
  setLifetime(seconds: number): void;
  /** Each refresh_token grant returns a new refresh token and invalidates the old one. */
  setRotation(on: boolean): void;
  /** Answer every token request with this HTTP status (503: endpoint down); null: normal. */
  setDown(status: number | null): void;
  /** Lets the device code with this user code through, for `user`. */
  approveDevice(userCode: string, user: string): void;
  /** Whether `token` is a refresh token the token endpoint would still take (not revoked or rotated away). */
  isRefreshTokenActive(token: string): boolean;
  /** Whether `token` is an active access token for `user` (what introspection says). */
  isActive(token: string, user?: string): boolean;
  counts: { token: Record<string, number>; introspection: number; device: number };
  /** The last device authorization the double handed out. */
  lastDevice(): { deviceCode: string; userCode: string } | undefined;
  stop(): Promise<void>;
}

type Grant = Record<string, string>;
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';

export async function startIdentityProviderDouble(): Promise<IdentityProviderDouble> {
  // jose is an ES module only: import() from this CommonJS build.
  const { createLocalJWKSet, exportJWK, exportPKCS8, generateKeyPair, jwtVerify } = await import('jose');
  const clients = new Map<string, string | undefined>();
  const appMailboxes = new Map<string, string>();
  const refresh = new Map<string, { clientId: string; user: string; revoked: boolean }>();
  const access = new Map<string, { user: string; expiresAt: number; refresh?: string }>();
  const accounts = new Map<string, Parameters<typeof jwtVerify>[1]>();
  const devices = new Map<string, { userCode: string; clientId: string; user?: string }>();
  let lifetime = 3600;
  let rotation = false;
  let down: number | null = null;
  let last: { deviceCode: string; userCode: string } | undefined;
  const counts = { token: {} as Record<string, number>, introspection: 0, device: 0 };
  const mint = (prefix: string) => `${prefix}-${randomBytes(12).toString('hex')}`;

  const grantAccess = (user: string, fromRefresh?: string) => {
    const token = mint('at');
    access.set(token, { user, expiresAt: Date.now() + lifetime * 1000, refresh: fromRefresh });
    return token;
  };
  const isActive = (token: string, user?: string) => {
    const a = access.get(token);
    if (!a || a.expiresAt <= Date.now()) return false;
    if (a.refresh && refresh.get(a.refresh)?.revoked) return false;
    return user === undefined || a.user.toLowerCase() === user.toLowerCase();
  };

  async function token(p: Grant): Promise<[number, object]> {
    const grant = p.grant_type ?? '';
    counts.token[grant] = (counts.token[grant] ?? 0) + 1;
    if (down !== null) return [down, { error: 'temporarily_unavailable', error_description: 'the double is down' }];
    const clientOk = () =>
      clients.has(p.client_id ?? '') && (clients.get(p.client_id!) === undefined || clients.get(p.client_id!) === p.client_secret);
    const ok = (user: string, extra: object = {}, from?: string) =>
      [200, { access_token: grantAccess(user, from), token_type: 'Bearer', expires_in: lifetime, ...extra }] as [number, object];
    if (grant === 'client_credentials') {
      if (!clientOk() || clients.get(p.client_id!) === undefined)
        return [401, { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.' }];
      // App-only: the app acts for the mailbox it was granted (FullAccess in Exchange).
      return ok(appMailboxes.get(p.client_id!) ?? '');
    }
    if (grant === 'refresh_token') {
      const r = refresh.get(p.refresh_token ?? '');
      if (!clientOk()) return [401, { error: 'invalid_client', error_description: 'unknown client' }];
      if (!r || r.revoked || r.clientId !== p.client_id)
        return [
          400,
          {
            error: 'invalid_grant',
            error_description: 'AADSTS70008: The refresh token has expired or is invalid due to sign-in frequency checks.',
          },
        ];
      if (!rotation) return ok(r.user, {}, p.refresh_token);
      r.revoked = true;
      const next = mint('rt');
      refresh.set(next, { clientId: r.clientId, user: r.user, revoked: false });
      return ok(r.user, { refresh_token: next }, next);
    }
    if (grant === JWT_BEARER) {
      try {
        const header = JSON.parse(Buffer.from((p.assertion ?? '').split('.')[0] ?? '', 'base64url').toString()) as { kid?: string };
        const keys = accounts.get(header.kid ?? '');
        if (!keys) throw new Error('unknown key');
        const { payload } = await jwtVerify(p.assertion!, keys, { audience: tokenUrl });
        if (typeof payload.sub !== 'string' || !payload.scope) throw new Error('no sub or scope');
        return ok(payload.sub);
      } catch (err) {
        return [400, { error: 'invalid_grant', error_description: `Invalid JWT: ${(err as Error).message}` }];
      }
    }
    if (grant === DEVICE) {
      const d = devices.get(p.device_code ?? '');
      if (!d) return [400, { error: 'expired_token' }];
      if (!d.user) return [400, { error: 'authorization_pending' }];
      devices.delete(p.device_code!);
      const rt = mint('rt');
      refresh.set(rt, { clientId: d.clientId, user: d.user, revoked: false });
      return ok(d.user, { refresh_token: rt }, rt);
    }
    return [400, { error: 'unsupported_grant_type' }];
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const p = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
      const auth = req.headers.authorization;
      if (auth?.startsWith('Basic ')) {
        const [id, secret] = Buffer.from(auth.slice(6), 'base64').toString().split(':').map(decodeURIComponent);
        p.client_id = id ?? '';
        p.client_secret = secret ?? '';
      }
      const send = ([status, body]: [number, object]) => {
        res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify(body));
      };
      if (req.url === '/token') void token(p).then(send);
      else if (req.url === '/introspect') {
        counts.introspection++;
        const t = p.token ?? '';
        const a = access.get(t);
        send([200, isActive(t) ? { active: true, username: a!.user, exp: Math.floor(a!.expiresAt / 1000) } : { active: false }]);
      } else if (req.url === '/devicecode') {
        counts.device++;
        if (!clients.has(p.client_id ?? '')) return send([400, { error: 'invalid_client' }]);
        const deviceCode = mint('dc');
        const userCode = randomBytes(4).toString('hex').toUpperCase();
        devices.set(deviceCode, { userCode, clientId: p.client_id! });
        last = { deviceCode, userCode };
        send([200, { device_code: deviceCode, user_code: userCode, verification_uri: `${url}/device`, expires_in: 900, interval: 1 }]);
      } else send([404, { error: 'not_found' }]);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tokenUrl = `${url}/token`;

  return {
    url,
    tokenUrl,
    deviceUrl: `${url}/devicecode`,
    introspectionUrl: `${url}/introspect`,
    counts,
    addClient(id, secret, appMailbox) {
      clients.set(id, secret);
      if (appMailbox) appMailboxes.set(id, appMailbox);
    },
    issueRefreshToken(clientId, user) {
      const rt = mint('rt');
      refresh.set(rt, { clientId, user, revoked: false });
      return rt;
    },
    async addServiceAccount(email) {
      const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
      const kid = mint('kid');
      accounts.set(kid, createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'RS256' }] }));
      return JSON.stringify({
        type: 'service_account',
        client_email: email,
        private_key_id: kid,
        private_key: await exportPKCS8(privateKey),
        token_uri: tokenUrl,
      });
    },
    revokeRefreshToken(t) {
      const r = refresh.get(t);
      if (r) r.revoked = true;
    },
    revokeAccessTokens: () => access.clear(),
    setLifetime: (s) => void (lifetime = s),
    setRotation: (on) => void (rotation = on),
    isRefreshTokenActive: (token) => refresh.get(token)?.revoked === false,
    setDown: (s) => void (down = s),
    approveDevice(userCode, user) {
      for (const d of devices.values()) if (d.userCode === userCode) d.user = user;
    },
    isActive,
    lastDevice: () => last,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
