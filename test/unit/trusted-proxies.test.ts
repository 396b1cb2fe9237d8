import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { loadConfig } from '../../src/config';
import { ConfigError } from '../../src/platform/errors';
import { clientAddress, resolveActor } from '../../src/review-inbox/auth';
import type { InboxUsers } from '../../src/review-inbox/inbox-users.mariadb';
import { isTrustedProxy } from '../../src/review-inbox/trusted-proxies';

const base = { IMAP_USER: 'u', IMAP_PASSWORD: 'p' };
const CONTAINER_NETWORKS = '10.88.0.0/16, fd00::/8, 192.0.2.10';

test('INBOX_TRUSTED_PROXIES: single addresses and CIDR ranges of both families', () => {
  const inbox = loadConfig({ ...base, INBOX_TRUSTED_PROXIES: CONTAINER_NETWORKS }).inbox;
  assert.deepEqual(inbox.trustedProxies, ['10.88.0.0/16', 'fd00::/8', '192.0.2.10']);
  const trusted = (a: string) => isTrustedProxy(inbox.trustedProxies, a);
  assert.equal(trusted('10.88.0.1'), true);
  assert.equal(trusted('10.88.255.254'), true);
  assert.equal(trusted('10.89.0.1'), false, 'outside the /16');
  assert.equal(trusted('::ffff:10.88.4.2'), true, 'an IPv4 peer seen on an IPv6 socket');
  assert.equal(trusted('fd12:3456::7'), true);
  assert.equal(trusted('fe80::1'), false);
  assert.equal(trusted('192.0.2.10'), true);
  assert.equal(trusted('192.0.2.11'), false);
  assert.equal(trusted(''), false);
  const defaults = loadConfig(base).inbox.trustedProxies;
  assert.equal(isTrustedProxy(defaults, '127.0.0.1'), true);
  assert.equal(isTrustedProxy(defaults, '::1'), true);
  assert.equal(isTrustedProxy(defaults, '10.0.0.1'), false);
});

test('INBOX_TRUSTED_PROXIES: a name, a bad range or a typo is refused with the value and what is accepted', () => {
  assert.throws(
    () => loadConfig({ ...base, INBOX_TRUSTED_PROXIES: 'proxy.local, 10.0.0.0/33, fd00::/129, 10.88.0.0/16' }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      for (const bad of ['proxy.local', '10.0.0.0/33', 'fd00::/129'])
        assert.ok(err.message.includes(`INBOX_TRUSTED_PROXIES holds "${bad}", not an IP address or CIDR range`), err.message);
      assert.ok(!err.message.includes('"10.88.0.0/16"'));
      return true;
    },
  );
});

test('header mode and the client address believe a peer inside a trusted range, and only it', async () => {
  const inbox = { ...loadConfig({ ...base, INBOX_AUTH: 'header', INBOX_TRUSTED_PROXIES: CONTAINER_NETWORKS }).inbox };
  const users = { find: async () => null } as unknown as InboxUsers;
  const request = (peer: string) =>
    ({
      socket: { remoteAddress: peer },
      headers: { 'x-forwarded-user': 'anna', 'x-forwarded-for': '203.0.113.9' },
    }) as unknown as FastifyRequest;
  assert.deepEqual(await resolveActor(request('10.88.3.4'), inbox, users), { name: 'anna', role: 'reviewer' });
  assert.deepEqual(await resolveActor(request('fd00::2'), inbox, users), { name: 'anna', role: 'reviewer' });
  assert.equal(await resolveActor(request('10.99.3.4'), inbox, users), 'untrusted');
  assert.equal(clientAddress(request('::ffff:10.88.3.4'), inbox), '203.0.113.9');
  assert.equal(clientAddress(request('198.51.100.7'), inbox), '198.51.100.7', 'an untrusted peer is the client itself');
});
