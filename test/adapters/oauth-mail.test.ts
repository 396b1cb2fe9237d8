/**
 * OAuth2 sign-in of the IMAP and SMTP adapters against a real Dovecot (oauth2 passdb, tokens
 * checked by introspection) and a real smtp-server listener (AUTH XOAUTH2). Only the identity
 * provider is a double (test/doubles/identity-provider-double.ts): Microsoft's and Google's token
 * endpoints cannot be reached from a test machine.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createImapConnection } from '../../src/mailboxes/imap-connection.imap';
import { createOAuthTokenProvider } from '../../src/mailboxes/oauth-token-provider';
import { createSmtpSender } from '../../src/mailboxes/mail-sender.smtp';
import { EmailRagError } from '../../src/platform/errors';
import type { OAuthSettings } from '../../src/mailboxes/mailbox-oauth';
import { resolveSecret } from '../../src/mailboxes/mailbox-registry';
import { startIdentityProviderDouble, type IdentityProviderDouble } from '../doubles/identity-provider-double';
import { startDovecot, type DovecotServer } from '../support/services/dovecot';
import { startSmtpSink, type SmtpSink } from '../support/services/smtp-sink';

const SHARED = { user: 'support@example.test', password: 'not-used-with-oauth' };
const PERSONAL = { user: 'anna@example.test', password: 'not-used-either' };
let idp: IdentityProviderDouble;
let dovecot: DovecotServer;
let bearerOnly: DovecotServer;
let sink: SmtpSink;
let dir: string;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-oauth-'));
  idp = await startIdentityProviderDouble();
  const users = [SHARED, PERSONAL];
  dovecot = await startDovecot({
    dir: path.join(dir, 'dovecot'),
    users,
    oauth2: { introspectionUrl: idp.introspectionUrl, mechanisms: ['xoauth2'] },
  });
  bearerOnly = await startDovecot({
    dir: path.join(dir, 'dovecot-bearer'),
    users,
    oauth2: { introspectionUrl: idp.introspectionUrl, mechanisms: ['oauthbearer'] },
  });
  sink = await startSmtpSink({ oauth: { isActive: (token, user) => idp.isActive(token, user) } });
});
after(async () => {
  await Promise.all([dovecot?.stop(), bearerOnly?.stop(), sink?.stop(), idp?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const mail = (n: number) =>
  `From: Kunde <kunde@example.org>\r\nTo: ${SHARED.user}\r\nSubject: Frage ${n}\r\nMessage-ID: <q${n}@example.org>\r\n\r\nHallo ${n}\r\n`;

function appOnly(clientId: string): OAuthSettings {
  return {
    provider: 'microsoft-app',
    grant: 'client_credentials',
    mechanism: 'XOAUTH2',
    tokenUrl: idp.tokenUrl,
    clientId,
    clientSecret: { env: 'APP_SECRET' },
    scope: 'https://outlook.office365.com/.default',
  };
}

function provider(env: Record<string, string> = {}) {
  const warnings: string[] = [];
  const tokens = createOAuthTokenProvider({
    readSecret: (ref) => resolveSecret(ref, env),
    logger: { warn: (m) => void warnings.push(m), info: () => undefined },
  });
  return { tokens, warnings };
}

test('app-only (client credentials): a mail is fetched over IMAP and a reply sent over SMTP with XOAUTH2', async () => {
  idp.addClient('app-1', 'app-secret', SHARED.user);
  await dovecot.deliver(SHARED.user, mail(1));
  const { tokens } = provider({ APP_SECRET: 'app-secret' });
  const source = tokens.source({ mailboxId: 'support', user: SHARED.user, oauth: appOnly('app-1') });
  const imap = createImapConnection({ host: dovecot.host, port: dovecot.port, tls: false, user: SHARED.user, tokens: source });
  const smtp = createSmtpSender({ host: sink.host, port: sink.port, tls: false, user: SHARED.user, tokens: source, mechanism: 'XOAUTH2' });
  try {
    const listing = await imap.listSince('INBOX', 0, 10);
    assert.equal(listing.messages.length, 1);
    const raw = await imap.fetchRaw({ mailbox: 'INBOX', uidValidity: listing.uidValidity, uid: listing.messages[0]!.uid, maxBytes: 1e6 });
    assert.match(raw.toString(), /Frage 1/);
    const before = sink.counts().received;
    await smtp.send(
      {
        from: { name: 'Support', address: SHARED.user },
        to: { name: '', address: 'kunde@example.org' },
        subject: 'Re: Frage 1',
        text: 'Antwort',
        messageId: '<a1@example.test>',
        references: ['<q1@example.org>'],
        inReplyTo: '<q1@example.org>',
      },
      { beforeData: async () => undefined, beforeFinalDot: async () => undefined },
    );
    const got = await sink.waitForMessages(before + 1, 5_000);
    assert.equal(got.at(-1)!.authUser, SHARED.user);
    // IMAP and SMTP of the mailbox share one token: one request to the token endpoint.
    assert.equal(idp.counts.token.client_credentials, 1);
  } finally {
    await imap.close();
  }
});

test('a token the server refuses before its time is renewed once and the login succeeds; no failure', async () => {
  idp.addClient('app-2', 'app-secret', SHARED.user);
  const { tokens } = provider({ APP_SECRET: 'app-secret' });
  const source = tokens.source({ mailboxId: 'support-2', user: SHARED.user, oauth: appOnly('app-2') });
  const first = createImapConnection({ host: dovecot.host, port: dovecot.port, tls: false, user: SHARED.user, tokens: source });
  await first.folderMark('INBOX');
  await first.close();
  const asked = idp.counts.token.client_credentials ?? 0;
  idp.revokeAccessTokens(); // the cache still holds the token: the server's refusal must renew it
  const second = createImapConnection({ host: dovecot.host, port: dovecot.port, tls: false, user: SHARED.user, tokens: source });
  try {
    await second.folderMark('INBOX');
    assert.equal(idp.counts.token.client_credentials, asked + 1);
  } finally {
    await second.close();
  }
});

test('a short-lived token is renewed before it expires (at 80 % of its lifetime), without a refused login', async () => {
  idp.addClient('app-3', 'app-secret', SHARED.user);
  idp.setLifetime(2);
  try {
    const { tokens } = provider({ APP_SECRET: 'app-secret' });
    const source = tokens.source({ mailboxId: 'support-3', user: SHARED.user, oauth: appOnly('app-3') });
    const a = await source.get();
    assert.equal(await source.get(), a, 'cached while fresh');
    await new Promise((r) => setTimeout(r, 1_800));
    const b = await source.get();
    assert.notEqual(b, a, 'renewed after 80 % of 2 s');
    assert.ok(idp.isActive(a), 'the old token was still valid: renewed before expiry');
  } finally {
    idp.setLifetime(3600);
  }
});

test('a revoked refresh token fails permanently with MAILBOX_AUTH_EXPIRED and the provider’s reason, never a secret', async () => {
  idp.addClient('desktop-1');
  const refresh = idp.issueRefreshToken('desktop-1', PERSONAL.user);
  idp.revokeRefreshToken(refresh);
  const file = path.join(dir, 'revoked.token');
  writeFileSync(file, `${refresh}\n`, { mode: 0o600 });
  const { tokens } = provider();
  const oauth: OAuthSettings = {
    provider: 'microsoft-delegated',
    grant: 'refresh_token',
    mechanism: 'XOAUTH2',
    tokenUrl: idp.tokenUrl,
    clientId: 'desktop-1',
    refreshToken: { file },
    scope: 'offline_access',
  };
  const imap = createImapConnection({
    host: dovecot.host,
    port: dovecot.port,
    tls: false,
    user: PERSONAL.user,
    tokens: tokens.source({ mailboxId: 'anna', user: PERSONAL.user, oauth }),
  });
  const err = await imap.listSince('INBOX', 0, 10).then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof EmailRagError);
  assert.equal(err.code, 'MAILBOX_AUTH_EXPIRED');
  assert.equal(err.errorClass, 'permanent');
  assert.match(err.message, /mailbox "anna".*invalid_grant.*AADSTS70008/);
  assert.ok(!err.message.includes(refresh));
});

test('a rotated refresh token is written back to its file atomically, mode kept; with an env reference a warning', async () => {
  idp.addClient('desktop-2', 'desktop-secret');
  idp.setRotation(true);
  try {
    const file = path.join(dir, 'anna.token');
    const first = idp.issueRefreshToken('desktop-2', PERSONAL.user);
    writeFileSync(file, `${first}\n`, { mode: 0o600 });
    const oauth: OAuthSettings = {
      provider: 'google',
      grant: 'refresh_token',
      mechanism: 'XOAUTH2',
      tokenUrl: idp.tokenUrl,
      clientId: 'desktop-2',
      clientSecret: { env: 'DESKTOP_SECRET' },
      refreshToken: { file },
      scope: 'https://mail.google.com/',
    };
    const { tokens } = provider({ DESKTOP_SECRET: 'desktop-secret' });
    const source = tokens.source({ mailboxId: 'anna-g', user: PERSONAL.user, oauth });
    const imap = createImapConnection({ host: dovecot.host, port: dovecot.port, tls: false, user: PERSONAL.user, tokens: source });
    await imap.folderMark('INBOX');
    await imap.close();
    const stored = readFileSync(file, 'utf8').trim();
    assert.notEqual(stored, first);
    assert.match(stored, /^rt-/);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    // The stored one works (the old one is dead): a fresh process starts from the file.
    const again = provider({ DESKTOP_SECRET: 'desktop-secret' }).tokens.source({ mailboxId: 'anna-g', user: PERSONAL.user, oauth });
    await again.get();

    const envToken = idp.issueRefreshToken('desktop-2', PERSONAL.user);
    const withEnv = provider({ DESKTOP_SECRET: 'desktop-secret', ANNA_REFRESH: envToken });
    const envSource = withEnv.tokens.source({
      mailboxId: 'anna-e',
      user: PERSONAL.user,
      oauth: { ...oauth, refreshToken: { env: 'ANNA_REFRESH' } },
    });
    const t1 = await envSource.get();
    assert.equal(withEnv.warnings.length, 1);
    assert.match(withEnv.warnings[0]!, /rotated.*\$ANNA_REFRESH cannot be written/);
    // The process keeps the rotated token: a renewal does not fall back to the dead one.
    assert.notEqual(await envSource.renew(t1), t1);
  } finally {
    idp.setRotation(false);
  }
});

test('OAUTHBEARER: IMAP against a server offering only OAUTHBEARER; Google service account (JWT bearer grant)', async () => {
  const key = await idp.addServiceAccount('mailer@project.iam.gserviceaccount.com');
  const keyFile = path.join(dir, 'sa.json');
  writeFileSync(keyFile, key, { mode: 0o600 });
  const oauth: OAuthSettings = {
    provider: 'google-service-account',
    grant: 'jwt_bearer',
    mechanism: 'OAUTHBEARER',
    tokenUrl: idp.tokenUrl,
    clientId: '',
    serviceAccountKey: { file: keyFile },
    scope: 'https://mail.google.com/',
  };
  const { tokens } = provider();
  const source = tokens.source({ mailboxId: 'support-g', user: SHARED.user, oauth });
  const imap = createImapConnection({ host: bearerOnly.host, port: bearerOnly.port, tls: false, user: SHARED.user, tokens: source });
  try {
    const mark = await imap.folderMark('INBOX');
    assert.ok(mark.uidNext >= 1);
    assert.equal(idp.counts.token['urn:ietf:params:oauth:grant-type:jwt-bearer'], 1);
  } finally {
    await imap.close();
  }
  // A token for another user does not open this mailbox (Dovecot compares the introspected user).
  const other = tokens.source({ mailboxId: 'anna-g2', user: PERSONAL.user, oauth });
  const wrong = createImapConnection({
    host: bearerOnly.host,
    port: bearerOnly.port,
    tls: false,
    user: SHARED.user,
    tokens: { get: () => other.get(), renew: () => other.get() },
  });
  await assert.rejects(wrong.folderMark('INBOX'), (e: unknown) => e instanceof EmailRagError && e.code === 'IMAP_AUTH');
  await wrong.close();
});
