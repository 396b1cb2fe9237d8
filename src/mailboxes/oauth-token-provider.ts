import { existsSync } from 'node:fs';
import { FAILURE_TYPES } from '../platform/contract';
import { ConfigError, PermanentError, errorMessage } from '../platform/errors';
import type { Logger } from '../platform/logger';
import type { OAuthSettings } from './mailbox-oauth';
import type { SecretRef } from '../platform/secret-ref';
import type { AccessTokenProvider, AccessTokenSource } from './access-tokens.port';
import { oauthFailure, requestToken, type GrantSecrets, type GrantedToken } from './oauth-client';
import { writeSecretFileAtomically } from '../platform/secret-file';

export interface OAuthTokenProviderOptions {
  /** Reads a secret by reference; throws ConfigError naming the reference. */
  readSecret(ref: SecretRef): string;
  logger?: Pick<Logger, 'warn' | 'info'>;
  /** Clock in ms (tests move it). */
  now?: () => number;
  /** The token request; openid-client's unless a test swaps it. */
  request?: (s: OAuthSettings, user: string, secrets: GrantSecrets) => Promise<GrantedToken>;
}

/** A token without `expires_in` is taken to live this long (providers name it: Microsoft and Google say 3599 s). */
const ASSUMED_LIFETIME_S = 600;
/** Renewed this long before it expires at most, and at 80 % of its lifetime for short-lived tokens. */
const MAX_MARGIN_S = 300;

/**
 * Access tokens per mailbox login, cached in this process: one token request per lifetime, not
 * one per IMAP session or SMTP send. Logins with the same settings (IMAP and SMTP of one Microsoft
 * 365 app) share one token. Concurrent callers wait for the same request.
 */
export function createOAuthTokenProvider(opts: OAuthTokenProviderOptions): AccessTokenProvider {
  const now = opts.now ?? Date.now;
  const request = opts.request ?? requestToken;
  const sources = new Map<string, AccessTokenSource>();

  function build(mailboxId: string, user: string, s: OAuthSettings): AccessTokenSource {
    const where = `mailbox "${mailboxId}"`;
    let cached: { token: string; renewAt: number } | undefined;
    let inFlight: Promise<string> | undefined;
    /** A rotated refresh token that could not be written back (an env reference) lives on here. */
    let rotated: string | undefined;

    const secret = (what: string, ref: SecretRef | undefined): string | undefined => {
      if (!ref) return undefined;
      try {
        return opts.readSecret(ref);
      } catch (err) {
        const why = err instanceof ConfigError ? err.message : errorMessage(err);
        throw new PermanentError(`${where}: OAuth2 ${what} unavailable: ${why}`, FAILURE_TYPES.mailboxSecret);
      }
    };

    const keepRotated = (next: string, current: string | undefined) => {
      if (!next || next === current) return;
      rotated = next;
      const ref = s.refreshToken;
      if (ref && 'file' in ref) {
        // Written back at once: the provider may already have invalidated the old one.
        try {
          writeSecretFileAtomically(ref.file, next);
          rotated = undefined;
          opts.logger?.info('OAuth2 refresh token rotated and stored', { mailbox: mailboxId, file: ref.file });
        } catch (err) {
          // The mailbox goes on with the new token in memory; only a restart would lose it.
          opts.logger?.warn(`OAuth2 refresh token of ${where} was rotated but ${ref.file} cannot be written: ${errorMessage(err)}`, {
            mailbox: mailboxId,
          });
        }
      } else if (ref) {
        opts.logger?.warn(
          `OAuth2 refresh token of ${where} was rotated by the provider, but $${ref.env} cannot be written: ` +
            'this process keeps the new one; use a { file } reference so a restart does not fall back to the old one',
          { mailbox: mailboxId },
        );
      }
    };

    /** The stored refresh token; a token file that was never written means: not signed in yet. */
    function refreshSecret(): string | undefined {
      try {
        return secret('refresh token', s.refreshToken);
      } catch (err) {
        const ref = s.refreshToken;
        // A mailbox added before its first sign-in: nothing to refresh yet, and nothing broken.
        if (ref && 'file' in ref && !existsSync(ref.file)) {
          throw new PermanentError(
            `${where}: not signed in yet (${ref.file} does not exist): run \`email-rag mailboxes authorize ${mailboxId}\``,
            FAILURE_TYPES.mailboxNotSignedIn,
          );
        }
        throw err;
      }
    }

    async function fetchToken(): Promise<string> {
      const refreshToken = rotated ?? refreshSecret();
      const secrets: GrantSecrets = {
        clientSecret: secret('client secret', s.clientSecret),
        refreshToken,
        serviceAccountKey: secret('service account key', s.serviceAccountKey),
      };
      const asked = now();
      let granted: GrantedToken;
      try {
        granted = await request(s, user, secrets);
      } catch (err) {
        throw oauthFailure(err, `${where} (${s.provider})`);
      }
      if (granted.refreshToken) keepRotated(granted.refreshToken, refreshToken);
      const life = granted.expiresIn && granted.expiresIn > 0 ? granted.expiresIn : ASSUMED_LIFETIME_S;
      const margin = Math.min(MAX_MARGIN_S, life * 0.2);
      cached = { token: granted.accessToken, renewAt: asked + (life - margin) * 1000 };
      return granted.accessToken;
    }

    const fresh = (): Promise<string> => {
      inFlight ??= fetchToken().finally(() => (inFlight = undefined));
      return inFlight;
    };

    return {
      async get() {
        if (cached && now() < cached.renewAt) return cached.token;
        return fresh();
      },
      async renew(rejected) {
        // Another caller may have renewed it already: the new one is good for this caller too.
        if (cached && cached.token !== rejected && now() < cached.renewAt) return cached.token;
        if (cached?.token === rejected) cached = undefined;
        return fresh();
      },
    };
  }

  return {
    source({ mailboxId, user, oauth }) {
      const key = JSON.stringify([mailboxId, user, oauth]);
      let s = sources.get(key);
      if (!s) {
        s = build(mailboxId, user, oauth);
        sources.set(key, s);
      }
      return s;
    },
  };
}
