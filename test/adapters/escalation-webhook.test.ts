/**
 * The escalation webhook against a real local HTTP server: a signed POST carries the timestamp
 * and an HMAC-SHA256 the receiver recomputes from the raw body (checked here with node:crypto, as
 * a receiver would, not with the product's function); without a secret nothing is signed; a
 * secret that cannot be read fails the notice before anything is sent.
 */
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createWebhookNotifier } from '../../src/cases/escalation.webhook';
import { ConfigError } from '../../src/platform/errors';
import { resolveSecret } from '../../src/mailboxes/mailbox-registry';
import type { EscalationNotice } from '../../src/cases/escalation-notifier.port';

const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
let server: Server;
let url: string;

before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/escalation`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const notice: EscalationNotice = {
  caseId: 'c-1',
  mailboxId: 'support',
  correspondent: 'kunde@example.org',
  subject: 'Rechnung fehlt',
  priority: 'high',
  dueAt: '2026-12-07T15:00:00.000Z',
  overdueBySeconds: 2700,
  idempotencyKey: 'escalation-abc',
};

/** What a receiver does: recompute over "<timestamp>.<raw body>", compare in constant time, refuse old timestamps. */
function verify(secret: string, headers: IncomingHttpHeaders, body: string, nowSeconds: number): boolean {
  const timestamp = Number(headers['x-email-rag-timestamp']);
  const given = String(headers['x-email-rag-signature'] ?? '');
  if (!Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > 300 || !given.startsWith('v1=')) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest();
  const actual = Buffer.from(given.slice(3), 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

test('a signed notice: the receiver recomputes the signature; a changed body or another secret does not verify', async () => {
  received.length = 0;
  const secrets: Record<string, string> = { support: 'whsec-support-7f3a' };
  const now = Date.UTC(2026, 11, 7, 15, 45);
  await createWebhookNotifier({ signingSecret: (id) => secrets[id], now: () => now }).notify(url, notice);
  const [hit] = received;
  assert.ok(hit);
  assert.equal(hit.headers['x-email-rag-timestamp'], String(now / 1000));
  assert.equal(hit.headers['idempotency-key'], 'escalation-abc');
  assert.equal(JSON.parse(hit.body).caseId, 'c-1');
  assert.ok(verify('whsec-support-7f3a', hit.headers, hit.body, now / 1000));
  assert.ok(!verify('whsec-support-7f3a', hit.headers, hit.body.replace('c-1', 'c-2'), now / 1000), 'a changed body');
  assert.ok(!verify('another-secret', hit.headers, hit.body, now / 1000), 'another secret');
  assert.ok(!verify('whsec-support-7f3a', hit.headers, hit.body, now / 1000 + 3600), 'replayed an hour later');
});

test('without a secret for the mailbox nothing is signed', async () => {
  received.length = 0;
  await createWebhookNotifier({ signingSecret: () => undefined }).notify(url, { ...notice, mailboxId: 'quiet' });
  assert.equal(received.length, 1);
  assert.equal(received[0]!.headers['x-email-rag-signature'], undefined);
  assert.equal(received[0]!.headers['x-email-rag-timestamp'], undefined);
});

test('a secret that cannot be read fails the notice, names the variable, and sends nothing unsigned', async () => {
  received.length = 0;
  const notifier = createWebhookNotifier({ signingSecret: () => resolveSecret({ env: 'NO_SUCH_WEBHOOK_SECRET' }, {}) });
  await assert.rejects(
    notifier.notify(url, notice),
    (err: unknown) => err instanceof ConfigError && /secret variable NO_SUCH_WEBHOOK_SECRET is not set/.test(err.message),
  );
  assert.equal(received.length, 0);
});
