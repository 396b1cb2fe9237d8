import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../../src/platform/errors';
import { parseMailboxRegistry, type MailboxDefaults } from '../../src/mailboxes/mailbox-registry';

const defaults: MailboxDefaults = {
  imap: { host: 'outlook.office365.com', port: 993, tls: true, sentFolder: 'Sent Items', pollIntervalSeconds: 60 },
  smtp: { host: 'smtp.office365.com', port: 587, tls: true, timeoutMs: 60_000 },
  language: 'de',
};

const problems = (text: string): string => {
  try {
    parseMailboxRegistry(text, defaults);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.message;
  }
  return assert.fail('expected a ConfigError');
};

test('Microsoft 365 app-only: imap.auth with provider defaults; smtp.auth "imap" shares it; the SMTP user is the mailbox', () => {
  const [m] = parseMailboxRegistry(
    `
version: 1
mailboxes:
  - id: support
    imap:
      user: support@contoso.com
      auth: { type: oauth2, provider: microsoft-app, tenant: contoso.onmicrosoft.com, clientId: 00000000-1111, clientSecret: { env: M365_SECRET } }
    smtp: { from: support@contoso.com, auth: imap }
`,
    defaults,
  );
  assert.equal(m!.imap.password, undefined);
  assert.deepEqual(m!.imap.oauth, {
    provider: 'microsoft-app',
    grant: 'client_credentials',
    mechanism: 'XOAUTH2',
    tokenUrl: 'https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token',
    issuer: undefined,
    deviceAuthorizationUrl: undefined,
    clientId: '00000000-1111',
    clientSecret: { env: 'M365_SECRET' },
    refreshToken: undefined,
    serviceAccountKey: undefined,
    scope: 'https://outlook.office365.com/.default',
    subject: undefined,
  });
  assert.deepEqual(m!.smtp.oauth, m!.imap.oauth);
  assert.equal(m!.smtp.user, 'support@contoso.com');
});

test('password stays the default: `password:` and `auth: { type: password }` read the same', () => {
  const [a, b] = parseMailboxRegistry(
    `
version: 1
mailboxes:
  - { id: a, imap: { user: a@x.test, password: { env: A } }, smtp: { from: a@x.test } }
  - { id: b, imap: { user: b@x.test, auth: { type: password, password: { env: B } } }, smtp: { from: b@x.test } }
`,
    defaults,
  );
  assert.deepEqual(a!.imap.password, { env: 'A' });
  assert.deepEqual(b!.imap.password, { env: 'B' });
  assert.equal(a!.imap.oauth, undefined);
});

test('Google refresh token, service account and a generic OIDC endpoint', () => {
  const list = parseMailboxRegistry(
    `
version: 1
mailboxes:
  - id: g
    imap: { user: g@x.test, auth: { type: oauth2, provider: google, clientId: c.apps.googleusercontent.com, clientSecret: { env: G }, refreshToken: { file: /etc/email-rag/g.token } } }
    smtp: { from: g@x.test, host: smtp.gmail.com, port: 465, auth: imap }
  - id: sa
    imap: { user: sa@x.test, auth: { type: oauth2, provider: google-service-account, serviceAccountKey: { file: /etc/email-rag/sa.json } } }
    smtp: { from: sa@x.test, auth: imap }
  - id: o
    imap: { user: o@x.test, auth: { type: oauth2, provider: oidc, issuer: "https://id.example.com/realms/mail", clientId: mail, clientSecret: { env: O }, mechanism: OAUTHBEARER } }
    smtp: { from: o@x.test }
`,
    defaults,
  );
  assert.equal(list[0]!.imap.oauth!.grant, 'refresh_token');
  assert.equal(list[0]!.imap.oauth!.deviceAuthorizationUrl, 'https://oauth2.googleapis.com/device/code');
  assert.equal(list[0]!.imap.oauth!.scope, 'https://mail.google.com/');
  assert.equal(list[1]!.imap.oauth!.grant, 'jwt_bearer');
  assert.equal(list[1]!.imap.oauth!.tokenUrl, 'https://oauth2.googleapis.com/token');
  assert.equal(list[2]!.imap.oauth!.issuer, 'https://id.example.com/realms/mail');
  assert.equal(list[2]!.imap.oauth!.mechanism, 'OAUTHBEARER');
  assert.equal(list[2]!.smtp.oauth, undefined);
});

test('every problem of an OAuth2 sign-in is listed with its entry, and a literal secret is refused', () => {
  const text = problems(`
version: 1
mailboxes:
  - id: a
    imap: { user: a@x.test, password: { env: A }, auth: { type: oauth2, provider: microsoft-app, clientId: c, clientSecret: { env: S }, tenant: t } }
    smtp: { from: a@x.test }
  - id: b
    imap: { user: b@x.test, auth: { type: oauth2, provider: microsoft-app, clientId: c, clientSecret: "hunter2" } }
    smtp: { from: b@x.test }
  - id: c
    imap: { user: c@x.test, auth: { type: oauth2, provider: google, clientId: c, refreshToken: { env: R }, mechanism: PLAIN, colour: blue } }
    smtp: { from: c@x.test }
  - id: d
    imap: { user: d@x.test, auth: { type: oauth2, provider: oidc, clientId: c, tokenUrl: "ftp://x", grant: password } }
    smtp: { from: d@x.test, auth: imap }
  - id: e
    imap: { user: e@x.test, auth: { type: kerberos } }
    smtp: { from: e@x.test }
  - id: f
    imap: { user: f@x.test, auth: { type: oauth2, provider: yahoo } }
    smtp: { from: f@x.test }
  - id: g
    imap: { user: g@x.test, auth: { type: oauth2, provider: microsoft-delegated, tenant: t, clientId: c } }
    smtp: { from: g@x.test }
  - id: h
    imap: { user: h@x.test, auth: { type: oauth2, provider: oidc, clientId: c, tokenUrl: "http://idp.example.com/token", clientSecret: { env: S } } }
    smtp: { from: h@x.test }
`);
  for (const expected of [
    'mailboxes[0].imap.password and an OAuth2 imap.auth exclude each other',
    'mailboxes[1].imap.auth.tenant is required for Microsoft 365',
    'mailboxes[1].imap.auth.clientSecret must reference the secret',
    'mailboxes[1].imap.auth.clientSecret is required for app-only sign-in',
    'mailboxes[2].imap.auth.colour is not a known field',
    'mailboxes[2].imap.auth.mechanism must be XOAUTH2 or OAUTHBEARER, got "PLAIN"',
    'mailboxes[2].imap.auth.clientSecret is required for Google',
    'mailboxes[3].imap.auth.tokenUrl must be an https URL',
    'mailboxes[3].imap.auth.grant must be client_credentials or refresh_token, got "password"',
    'mailboxes[4].imap.auth must be { type: password',
    'mailboxes[5].imap.auth.provider must be one of microsoft-app, microsoft-delegated, google, google-service-account, oidc, got "yahoo"',
    'mailboxes[6].imap.auth.refreshToken is required',
    'mailboxes[7].imap.auth.tokenUrl must be an https URL',
  ])
    assert.ok(text.includes(expected), `missing: ${expected}\nin: ${text}`);
  assert.ok(!text.includes('hunter2'));
});
