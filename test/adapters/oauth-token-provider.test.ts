/**
 * The token provider against hostile and broken token endpoints (an identity provider double and
 * a raw HTTP server): an outage is transient, nonsense is refused clearly, a rotated token that
 * cannot be written back is kept in memory with a warning, a control character never reaches SASL.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createOAuthTokenProvider } from '../../src/mailboxes/oauth-token-provider';
import { createSmtpSender } from '../../src/mailboxes/mail-sender.smtp';
import { EmailRagError } from '../../src/platform/errors';
import type { OAuthSettings } from '../../src/mailboxes/mailbox-oauth';
import { resolveSecret } from '../../src/mailboxes/mailbox-registry';
import { startIdentityProviderDouble, type IdentityProviderDouble } from '../doubles/identity-provider-double';
import { startSmtpSink, type SmtpSink } from '../support/services/smtp-sink';

let idp: IdentityProviderDouble;
let sink: SmtpSink;
let dir: string;
before(async () => {
  idp = await startIdentityProviderDouble();
  idp.addClient('app', 'secret', 'support@example.test');
  sink = await startSmtpSink({ oauth: { isActive: (t, u) => idp.isActive(t, u) } });
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-tokens-'));
});
after(async () => {
  await Promise.all([idp?.stop(), sink?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const app = (tokenUrl: string): OAuthSettings => ({
  provider: 'oidc',
  grant: 'client_credentials',
  mechanism: 'XOAUTH2',
  tokenUrl,
  clientId: 'app',
  clientSecret: { env: 'S' },
  scope: '',
});
const provider = (warn: (m: string) => void = () => undefined) =>
  createOAuthTokenProvider({ readSecret: (r) => resolveSecret(r, { S: 'secret' }), logger: { warn, info: () => undefined } });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e as EmailRagError,
  );

test('an endpoint answering 503 is transient (retried like a network error); an unreachable one too', async () => {
  idp.setDown(503);
  try {
    const err = await failure(
      provider()
        .source({ mailboxId: 'm', user: 'support@example.test', oauth: app(idp.tokenUrl) })
        .get(),
    );
    assert.ok(err instanceof EmailRagError);
    assert.equal(err.errorClass, 'transient');
  } finally {
    idp.setDown(null);
  }
  const gone = await failure(
    provider()
      .source({ mailboxId: 'm', user: 'u', oauth: app('http://127.0.0.1:9/token') })
      .get(),
  );
  assert.equal(gone.errorClass, 'transient');
  assert.match(gone.message, /token endpoint is unavailable/);
});

test('nonsense from the endpoint (200 without a token, HTML) is refused clearly, naming the mailbox', async () => {
  const answers = [
    { type: 'application/json', body: '{"token_type":"Bearer"}' },
    { type: 'text/html', body: '<html>login</html>' },
  ];
  for (const a of answers) {
    const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': a.type }).end(a.body));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
      const err = await failure(
        provider()
          .source({ mailboxId: 'odd', user: 'u', oauth: app(url) })
          .get(),
      );
      assert.ok(err instanceof EmailRagError, String(err));
      assert.match(err.message, /mailbox "odd"/);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  }
});

test('a rotated refresh token whose file cannot be written is kept in memory, with a warning', async () => {
  idp.addClient('desk', 'secret');
  idp.setRotation(true);
  try {
    const first = idp.issueRefreshToken('desk', 'anna@example.test');
    const warnings: string[] = [];
    // The file is read (as the reference says) but its folder does not exist, so no write can succeed.
    const source = createOAuthTokenProvider({
      readSecret: (r) => ('file' in r ? first : 'secret'),
      logger: { warn: (m) => void warnings.push(m), info: () => undefined },
    }).source({
      mailboxId: 'anna',
      user: 'anna@example.test',
      oauth: { ...app(idp.tokenUrl), grant: 'refresh_token', clientId: 'desk', refreshToken: { file: path.join(dir, 'missing', 'rt') } },
    });
    const t1 = await source.get();
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /rotated but .*missing\/rt cannot be written/);
    // The old refresh token is dead (rotation): the renewal works only with the one kept in memory.
    assert.notEqual(await source.renew(t1), t1);
  } finally {
    idp.setRotation(false);
  }
});

test('a user name with a control character never reaches the SMTP server’s SASL exchange', async () => {
  const tokens = provider().source({ mailboxId: 'm', user: 'support@example.test', oauth: app(idp.tokenUrl) });
  const before = sink.counts().received;
  const sender = createSmtpSender({ host: sink.host, port: sink.port, tls: false, user: 'support@example.test\x01auth=Bearer x', tokens });
  const err = await failure(
    sender.send(
      {
        from: { name: '', address: 'support@example.test' },
        to: { name: '', address: 'k@example.org' },
        subject: 's',
        text: 't',
        messageId: '<m@x>',
      },
      { beforeData: async () => undefined, beforeFinalDot: async () => undefined },
    ),
  );
  assert.match(err.message, /control character/);
  assert.equal(sink.counts().received, before);
});
