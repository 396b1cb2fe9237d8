import type SMTPConnection from 'nodemailer/lib/smtp-connection';
import type { OAuthMechanism } from '../mailboxes/mailbox-oauth';

/**
 * SASL XOAUTH2 and OAUTHBEARER (RFC 7628) for nodemailer's SMTP connection, as custom handlers:
 * nodemailer's own XOAUTH2 wants to fetch tokens itself (its XOAuth2 generator) and has no
 * OAUTHBEARER, while our tokens come from the worker's cache (src/mailboxes/oauth-token-provider.ts).
 * The token rides as the login's `pass`; nodemailer masks AUTH lines in its transaction log.
 */
export function oauthSmtpHandlers(server: { host: string; port: number }): SMTPConnection.CustomAuthenticationHandlers {
  const handler = (mechanism: OAuthMechanism) => async (ctx: SMTPConnection.CustomAuthenticationContext) => {
    const { user, pass: token } = ctx.auth.credentials;
    // \x01 separates the SASL fields: a user or token holding one (or any control character) could add fields.
    if (/[\x00-\x1f\x7f]/.test(`${user}${token}`)) return ctx.reject(new Error(`${mechanism}: user or token holds a control character`));
    const payload =
      mechanism === 'XOAUTH2'
        ? `user=${user}\x01auth=Bearer ${token}\x01\x01`
        : `n,a=${user.replace(/=/g, '=3D').replace(/,/g, '=2C')},\x01host=${server.host}\x01port=${server.port}\x01auth=Bearer ${token}\x01\x01`;
    let r = await ctx.sendCommand(`AUTH ${mechanism} ${Buffer.from(payload).toString('base64')}`);
    // A refusal comes as a 334 challenge holding the error as JSON; the client answers it to end the exchange.
    if (r.status === 334) r = await ctx.sendCommand(mechanism === 'XOAUTH2' ? '' : 'AQ==');
    if (r.status === 235) ctx.resolve();
    else ctx.reject(new Error(`${mechanism} login refused: ${r.response}`));
  };
  return { XOAUTH2: handler('XOAUTH2'), OAUTHBEARER: handler('OAUTHBEARER') };
}

/** The login for SMTPConnection.login with the handlers above. */
export function oauthSmtpLogin(user: string, accessToken: string, mechanism: OAuthMechanism): SMTPConnection.Credentials {
  // `method` is read by nodemailer at run time but missing from its types.
  return { method: mechanism, user, pass: accessToken } as SMTPConnection.Credentials;
}
