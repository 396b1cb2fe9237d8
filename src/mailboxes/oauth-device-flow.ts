import type { OAuthSettings } from './mailbox-oauth';
import { oauthConfiguration, oauthFailure, openIdClient, type GrantSecrets } from './oauth-client';

/** What the operator must do: open the URL and enter the code. */
export interface DevicePrompt {
  verificationUri: string;
  userCode: string;
  /** The URL with the code filled in, when the provider gives one. */
  verificationUriComplete?: string;
  expiresInSeconds: number;
}

/**
 * The OAuth2 device authorization grant (RFC 8628) through openid-client: asks the device
 * authorization endpoint for a code, lets `prompt` show it, then polls the token endpoint at the
 * provider's interval until the person signed in (or the code expired). Returns the refresh token.
 */
export async function authorizeDevice(
  s: OAuthSettings,
  secrets: GrantSecrets,
  prompt: (p: DevicePrompt) => void,
  where: string,
): Promise<{ refreshToken: string; grantedScope?: string }> {
  const client = await openIdClient();
  try {
    const config = await oauthConfiguration(s, secrets);
    const started = await client.initiateDeviceAuthorization(config, s.scope ? { scope: s.scope } : {});
    prompt({
      verificationUri: started.verification_uri,
      userCode: started.user_code,
      verificationUriComplete: started.verification_uri_complete,
      expiresInSeconds: started.expires_in,
    });
    const tokens = await client.pollDeviceAuthorizationGrant(config, started);
    if (!tokens.refresh_token) throw new Error('the provider returned no refresh token (is offline access in the scope?)');
    return { refreshToken: tokens.refresh_token, grantedScope: tokens.scope };
  } catch (err) {
    throw oauthFailure(err, where);
  }
}
