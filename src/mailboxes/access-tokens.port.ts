import type { OAuthSettings } from './mailbox-oauth';

/** The access tokens of one OAuth2 login (a mailbox's IMAP or SMTP sign-in). */
export interface AccessTokenSource {
  /**
   * A token that stays valid for a while yet: the cached one, or a new one once it nears expiry.
   * Throws a permanent MAILBOX_AUTH_EXPIRED error when the provider refuses the grant.
   */
  get(): Promise<string>;
  /** The mail server refused `rejected`: forget it and get a new one (the caller logs in once more). */
  renew(rejected: string): Promise<string>;
}

/** Access tokens per mailbox login, cached in the worker process. */
export interface AccessTokenProvider {
  source(login: { mailboxId: string; user: string; oauth: OAuthSettings }): AccessTokenSource;
}
