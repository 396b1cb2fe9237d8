import { authorizeDevice, type DevicePrompt } from './oauth-device-flow';
import { writeSecretFileAtomically } from '../platform/secret-file';
import type { Config } from '../platform/config';
import { EmailRagError } from '../platform/errors';
import { resolveSecret } from './mailbox-registry';
import { CliError } from '../platform/cli-context';

/**
 * `email-rag mailboxes authorize ID`: the device-code sign-in for a mailbox whose registry entry
 * takes a refresh token (microsoft-delegated, google, oidc with refresh_token). The operator opens
 * the URL, enters the code and signs in as the mailbox user; the refresh token goes into the
 * entry's `{ file }` reference (atomically, mode 0600). Refused for password and app-only sign-ins
 * and for `{ env }` references (a variable cannot be written).
 */
export async function mailboxesAuthorize(
  config: Config,
  id: string,
  say: (line: string) => void,
  env: Record<string, string | undefined> = process.env,
): Promise<string> {
  const entry = config.mailboxes.find((m) => m.id === id);
  if (!entry) throw new CliError(`no mailbox "${id}" in the registry (known: ${config.mailboxes.map((m) => m.id).join(', ')})`, 2);
  const oauth = entry.imap.oauth ?? entry.smtp.oauth;
  if (!oauth) throw new CliError(`mailbox "${id}" signs in with a password: nothing to authorize`, 2);
  if (oauth.grant !== 'refresh_token')
    throw new CliError(
      `mailbox "${id}" signs in app-only (${oauth.provider}): no person signs in; an administrator grants the app access ` +
        '(docs/mailboxes.md), and `email-rag mailboxes check` tries it',
      2,
    );
  const ref = oauth.refreshToken;
  if (!ref || !('file' in ref))
    throw new CliError(
      `the refresh token of mailbox "${id}" is ${ref ? `$${ref.env}` : 'not referenced'}: a variable cannot be written; ` +
        'set imap.auth.refreshToken to { file: path } and run this again',
      2,
    );
  if (!oauth.deviceAuthorizationUrl && !oauth.issuer)
    throw new CliError(`mailbox "${id}": provider ${oauth.provider} has no deviceAuthorizationUrl; set it in imap.auth`, 2);
  let clientSecret: string | undefined;
  try {
    clientSecret = oauth.clientSecret ? resolveSecret(oauth.clientSecret, env) : undefined;
  } catch (err) {
    throw new CliError(`mailbox "${id}": ${(err as Error).message}`, 2);
  }
  const prompt = (p: DevicePrompt) => {
    say(`Sign in as ${entry.imap.user} to authorize mailbox "${id}":`);
    say(`  open   ${p.verificationUriComplete ?? p.verificationUri}`);
    say(`  code   ${p.userCode}`);
    say(`Waiting up to ${Math.round(p.expiresInSeconds / 60)} min for the sign-in …`);
  };
  let got: { refreshToken: string };
  try {
    got = await authorizeDevice(oauth, { clientSecret }, prompt, `mailbox "${id}" (${oauth.provider})`);
  } catch (err) {
    throw new CliError(err instanceof EmailRagError ? `${err.code}: ${err.message}` : String(err), 1);
  }
  writeSecretFileAtomically(ref.file, got.refreshToken, { mode: 0o600 });
  return `mailbox ${id}: refresh token stored in ${ref.file} (mode 0600); \`email-rag mailboxes check ${id}\` tries it, the next poll uses it`;
}
