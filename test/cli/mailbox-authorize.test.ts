/**
 * `email-rag mailboxes authorize ID` against the identity provider double (the real device
 * authorization endpoints of Microsoft and Google cannot be reached from a test machine).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { mailboxesAuthorize } from '../../src/mailboxes/mailbox-authorize.cli';
import { loadConfig, type Config } from '../../src/config';
import { startIdentityProviderDouble, type IdentityProviderDouble } from '../doubles/identity-provider-double';

let idp: IdentityProviderDouble;
let dir: string;

before(async () => {
  idp = await startIdentityProviderDouble();
  idp.addClient('tv-client', 'tv-secret');
  idp.addClient('app', 'app-secret');
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-authorize-'));
});
after(async () => {
  await idp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function configWith(auth: string, smtpAuth = 'imap'): Config {
  const file = path.join(dir, `mailboxes-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    file,
    `version: 1
mailboxes:
  - id: anna
    imap: { user: anna@example.test, auth: ${auth} }
    smtp: { from: anna@example.test, auth: ${smtpAuth} }
`,
  );
  return loadConfig({
    DATABASE_URL: 'mysql://root@127.0.0.1:3306/x',
    MAILBOXES_FILE: file,
    TV_SECRET: 'tv-secret',
    APP_SECRET: 'app-secret',
  });
}

test('walks through the device-code flow and stores the refresh token in the file, mode 0600', async () => {
  const tokenFile = path.join(dir, 'anna.token');
  writeFileSync(tokenFile, 'old\n', { mode: 0o644 });
  const config = configWith(
    `{ type: oauth2, provider: google, clientId: tv-client, clientSecret: { env: TV_SECRET }, refreshToken: { file: ${tokenFile} }, tokenUrl: "${idp.tokenUrl}", deviceAuthorizationUrl: "${idp.deviceUrl}" }`,
  );
  const lines: string[] = [];
  const said = (line: string) => {
    lines.push(line);
    // The person signs in once the code is shown.
    const code = /code\s+(\S+)/.exec(line)?.[1];
    if (code) setTimeout(() => idp.approveDevice(code, 'anna@example.test'), 1_500);
  };
  const result = await mailboxesAuthorize(config, 'anna', said, { TV_SECRET: 'tv-secret' });
  assert.match(lines.join('\n'), new RegExp(`open\\s+${idp.url}/device`));
  assert.match(result, /refresh token stored/);
  const stored = readFileSync(tokenFile, 'utf8').trim();
  assert.match(stored, /^rt-/);
  assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
  assert.ok(idp.counts.token['urn:ietf:params:oauth:grant-type:device_code']! >= 2, 'polled while pending');
  assert.ok(!result.includes(stored) && !lines.join('').includes(stored), 'the token is never printed');
});

test('refuses app-only sign-ins, { env } references and password mailboxes with a clear message', async () => {
  const appOnly = configWith(
    `{ type: oauth2, provider: microsoft-app, tenant: t, clientId: app, clientSecret: { env: APP_SECRET }, tokenUrl: "${idp.tokenUrl}" }`,
  );
  await assert.rejects(
    mailboxesAuthorize(appOnly, 'anna', () => undefined),
    /signs in app-only \(microsoft-app\): no person signs in/,
  );
  const fromEnv = configWith(
    `{ type: oauth2, provider: microsoft-delegated, tenant: t, clientId: tv-client, refreshToken: { env: ANNA_RT } }`,
  );
  await assert.rejects(
    mailboxesAuthorize(fromEnv, 'anna', () => undefined),
    /is \$ANNA_RT: a variable cannot be written/,
  );
  const password = configWith(`{ type: password, password: { env: PW } }`, '{ type: password, password: { env: PW } }');
  await assert.rejects(
    mailboxesAuthorize(password, 'anna', () => undefined),
    /signs in with a password/,
  );
  await assert.rejects(
    mailboxesAuthorize(password, 'nobody', () => undefined),
    /no mailbox "nobody"/,
  );
});

test('an unknown client is refused with the provider’s error, and the file is left alone', async () => {
  const tokenFile = path.join(dir, 'kept.token');
  writeFileSync(tokenFile, 'kept\n', { mode: 0o600 });
  const config = configWith(
    `{ type: oauth2, provider: oidc, grant: refresh_token, clientId: stranger, refreshToken: { file: ${tokenFile} }, tokenUrl: "${idp.tokenUrl}", deviceAuthorizationUrl: "${idp.deviceUrl}" }`,
  );
  await assert.rejects(
    mailboxesAuthorize(config, 'anna', () => undefined),
    /MAILBOX_AUTH_EXPIRED: .*invalid_client/,
  );
  assert.equal(readFileSync(tokenFile, 'utf8'), 'kept\n');
});
