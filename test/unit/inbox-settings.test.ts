import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config';
import { ConfigError } from '../../src/platform/errors';
import { pickLanguage, TEXTS } from '../../src/review-inbox/i18n';

const base = { IMAP_USER: 'u', IMAP_PASSWORD: 'p' };

test('inbox settings: defaults, SLA per priority, header mode and its trusted proxies', () => {
  const c = loadConfig(base).inbox;
  assert.equal(c.port, 8025);
  assert.equal(c.auth, 'password');
  assert.deepEqual(c.slaMinutes, { critical: 30, high: 120, normal: 480, low: 1440 });
  assert.equal(c.temporalUiUrl, 'http://127.0.0.1:8233');
  const h = loadConfig({
    ...base,
    INBOX_AUTH: 'header',
    INBOX_AUTH_HEADER: 'X-Auth-Request-User',
    INBOX_TRUSTED_PROXIES: '10.0.0.5, ::1',
    INBOX_SLA_MINUTES_HIGH: '60',
    TEMPORAL_UI_URL: 'https://temporal.example/',
  }).inbox;
  assert.equal(h.auth, 'header');
  assert.equal(h.authHeader, 'x-auth-request-user');
  assert.deepEqual(h.trustedProxies, ['10.0.0.5', '::1']);
  assert.equal(h.slaMinutes.high, 60);
  assert.equal(h.temporalUiUrl, 'https://temporal.example');
});

test('inbox settings: every mistake is reported', () => {
  assert.throws(
    () =>
      loadConfig({
        ...base,
        INBOX_AUTH: 'oidc',
        INBOX_PORT: '70000',
        INBOX_TRUSTED_PROXIES: 'proxy.local',
        INBOX_SESSION_SECRET: 'short',
        INBOX_SLA_MINUTES_LOW: '0',
      }),
    (err: unknown) =>
      err instanceof ConfigError &&
      ['INBOX_AUTH', 'INBOX_PORT', 'INBOX_TRUSTED_PROXIES', 'INBOX_SESSION_SECRET', 'INBOX_SLA_MINUTES_LOW'].every((n) =>
        err.message.includes(n),
      ),
  );
});

test('UI language from Accept-Language by quality, English otherwise; both languages have every text', () => {
  assert.equal(pickLanguage('de-DE,de;q=0.9,en;q=0.8'), 'de');
  assert.equal(pickLanguage('fr-FR, en;q=0.5, de;q=0.7'), 'de');
  assert.equal(pickLanguage('fr'), 'en');
  assert.equal(pickLanguage(undefined), 'en');
  assert.equal(pickLanguage('de;q=0'), 'en');
  assert.deepEqual(Object.keys(TEXTS.de).sort(), Object.keys(TEXTS.en).sort());
  for (const [key, value] of Object.entries(TEXTS.de)) assert.ok(value.trim() !== '', key);
});
