/** Sign-in rules as pure functions: the throttle's delays and locks, IPv6 keys, SSO settings and role mapping. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config';
import { ConfigError } from '../../src/platform/errors';
import { roleFromClaims } from '../../src/review-inbox/inbox-roles';
import {
  accountAfterFailure,
  addressAfterFailure,
  addressKey,
  judgeAttempt,
  type ThrottleCounter,
} from '../../src/review-inbox/login-throttle-policy';

const base = { IMAP_USER: 'u', IMAP_PASSWORD: 'p' };
const fresh = (now: Date): ThrottleCounter => ({ failures: 0, windowStartedAt: now, lastFailureAt: null, nextAttemptAt: null });
const at = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000);

test('a name: delays 1, 2, 4, 8 s, then a 15-minute lock per failure; forgotten after 24 quiet hours', () => {
  let acc = fresh(at(0));
  const waits: number[] = [];
  let t = 0;
  for (let i = 0; i < 6; i += 1) {
    acc = accountAfterFailure(acc, at(t));
    waits.push((acc.nextAttemptAt!.getTime() - at(t).getTime()) / 1000);
    const verdict = judgeAttempt(acc, fresh(at(t)), at(t));
    assert.equal(verdict.ok, false);
    t += waits.at(-1)!;
  }
  assert.deepEqual(waits, [1, 2, 4, 8, 900, 900]);
  assert.deepEqual(judgeAttempt(acc, fresh(at(t)), at(t)), { ok: true });
  assert.equal(accountAfterFailure(acc, at(t + 25 * 3600)).failures, 1, 'a day later the count starts again');
});

test('an address: 20 failures in 10 minutes lock it for 10 minutes, whatever the name; then a new window', () => {
  let adr = fresh(at(0));
  for (let i = 0; i < 19; i += 1) adr = addressAfterFailure(adr, at(i));
  assert.equal(adr.nextAttemptAt, null);
  adr = addressAfterFailure(adr, at(19));
  const verdict = judgeAttempt(fresh(at(20)), adr, at(20));
  assert.deepEqual(verdict, { ok: false, reason: 'address_locked', retryAfterSeconds: 599 });
  assert.deepEqual(judgeAttempt(fresh(at(620)), adr, at(620)), { ok: true });
  assert.equal(addressAfterFailure(adr, at(620)).failures, 1);
  // Failures spread wider than the window never lock.
  let slow = fresh(at(0));
  for (let i = 0; i < 40; i += 1) slow = addressAfterFailure(slow, at(i * 60));
  assert.equal(slow.nextAttemptAt, null);
});

test('address keys: IPv4 as it is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64', () => {
  assert.equal(addressKey('203.0.113.7'), '203.0.113.7');
  assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(addressKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:db8:1:2::9'), addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'));
  assert.notEqual(addressKey('2001:db8:1:2::9'), addressKey('2001:db8:1:3::9'));
  assert.equal(addressKey('::1'), '0:0:0:0::/64');
});

test('roles from claims: a group map with the highest role winning, or the role names themselves', () => {
  const map = { 'support-leads': 'operator', support: 'reviewer' } as const;
  assert.equal(roleFromClaims({ groups: ['support', 'support-leads'] }, 'groups', map), 'operator');
  assert.equal(roleFromClaims({ groups: 'support other' }, 'groups', map), 'reviewer');
  assert.equal(roleFromClaims({ groups: ['marketing'] }, 'groups', map), null);
  assert.equal(roleFromClaims({ roles: ['operator'] }, 'roles', {}), 'operator');
  assert.equal(roleFromClaims({ roles: ['admin', 42] }, 'roles', {}), null);
  assert.equal(roleFromClaims({}, 'groups', map), null);
});

test('single sign-on settings: read with the secret by reference; every mistake listed at once', () => {
  const c = loadConfig({
    ...base,
    INBOX_OIDC_ISSUER: 'https://login.example.com/realms/support/',
    INBOX_OIDC_CLIENT_ID: 'inbox',
    INBOX_OIDC_CLIENT_SECRET: 'file:/run/secrets/inbox-oidc',
    INBOX_PUBLIC_URL: 'https://inbox.example.com/',
    INBOX_OIDC_ROLE_CLAIM: 'roles',
    INBOX_OIDC_ROLE_MAP: 'Inbox.Operator=operator, Inbox.Reviewer=reviewer',
    INBOX_LOCAL_USERS: 'off',
    INBOX_SESSION_HOURS: '8',
  }).inbox;
  assert.deepEqual(c.oidc, {
    issuer: 'https://login.example.com/realms/support',
    clientId: 'inbox',
    clientSecret: { file: '/run/secrets/inbox-oidc' },
    publicUrl: 'https://inbox.example.com',
    scopes: 'openid profile email',
    nameClaim: 'preferred_username',
    roleClaim: 'roles',
    roleMap: { 'Inbox.Operator': 'operator', 'Inbox.Reviewer': 'reviewer' },
  });
  assert.equal(c.localUsers, false);
  assert.equal(c.sessionHours, 8);
  assert.deepEqual(
    loadConfig({
      ...base,
      INBOX_OIDC_ISSUER: 'https://x.example',
      INBOX_OIDC_CLIENT_ID: 'a',
      INBOX_OIDC_CLIENT_SECRET: '{"env":"OIDC_SECRET"}',
      INBOX_PUBLIC_URL: 'https://i.example',
    }).inbox.oidc?.clientSecret,
    { env: 'OIDC_SECRET' },
  );

  assert.throws(
    () =>
      loadConfig({
        ...base,
        INBOX_OIDC_ISSUER: 'login.example.com',
        INBOX_OIDC_CLIENT_SECRET: 'the-secret-itself',
        INBOX_OIDC_ROLE_MAP: 'support=admin',
        INBOX_SESSION_IDLE_MINUTES: '1',
      }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      for (const part of [
        /INBOX_OIDC_ISSUER must be an http\(s\) URL/,
        /INBOX_OIDC_CLIENT_ID is required/,
        /INBOX_OIDC_CLIENT_SECRET must reference the secret/,
        /INBOX_PUBLIC_URL must be an http\(s\) URL/,
        /INBOX_OIDC_ROLE_MAP: "support=admin"/,
        /INBOX_SESSION_IDLE_MINUTES/,
      ])
        assert.match(err.message, part);
      assert.doesNotMatch(err.message, /the-secret-itself/, 'a literal secret is not repeated');
      return true;
    },
  );
  assert.throws(() => loadConfig({ ...base, INBOX_LOCAL_USERS: 'off' }), /INBOX_LOCAL_USERS=off needs single sign-on/);
});
