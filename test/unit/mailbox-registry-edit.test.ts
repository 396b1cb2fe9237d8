import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../../src/platform/errors';
import { parseMailboxRegistry, type MailboxDefaults } from '../../src/mailboxes/mailbox-registry';
import { setMailboxEnabled } from '../../src/mailboxes/mailbox-registry-edit';

const defaults: MailboxDefaults = {
  imap: { host: '127.0.0.1', port: 143, tls: false, sentFolder: 'Sent', pollIntervalSeconds: 60 },
  smtp: { host: '127.0.0.1', port: 25, tls: false, timeoutMs: 60_000 },
  language: 'de',
};

const YAML = `# Mailboxes of the installation — reviewed like code.
version: 1
mailboxes:
  # first line of support
  - id: support
    imap:
      user: support@example.test # the shared account
      password: { env: SUPPORT_PW }
      folders: [INBOX, Escalations]
    smtp:
      from: "Support <support@example.test>"
  - id: billing
    enabled: true
    imap: { user: billing@example.test, password: { file: /run/secrets/billing } }
    smtp: { from: billing@example.test }
`;

const opts = { json: false, defaults };

test('disable and enable edit only that entry; comments, order and flow style survive', () => {
  const off = setMailboxEnabled(YAML, 'billing', false, opts);
  assert.equal(off.changed, true);
  assert.equal(off.text, YAML.replace('    enabled: true\n', '    enabled: false\n'));
  const support = setMailboxEnabled(off.text, 'support', true, opts);
  assert.equal(support.changed, false, 'already enabled');
  assert.equal(support.text, off.text);
  const on = setMailboxEnabled(off.text, 'billing', true, opts);
  assert.equal(on.text, YAML);

  // An entry without the key gets it right below its id.
  const supportOff = setMailboxEnabled(YAML, 'support', false, opts).text;
  assert.match(supportOff, /^ {2}- id: support\n {4}enabled: false\n {4}imap:\n/m);
  assert.match(supportOff, /^# Mailboxes of the installation — reviewed like code\.$/m);
  assert.match(supportOff, /user: support@example\.test # the shared account/);
  assert.deepEqual(
    parseMailboxRegistry(supportOff, defaults).map((m) => [m.id, m.enabled]),
    [
      ['support', false],
      ['billing', true],
    ],
  );
});

test('an unknown id and disabling the last enabled mailbox are refused', () => {
  assert.throws(
    () => setMailboxEnabled(YAML, 'info', false, opts),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /no mailbox "info".*known: support, billing/);
      return true;
    },
  );
  const one = setMailboxEnabled(YAML, 'billing', false, opts).text;
  assert.throws(() => setMailboxEnabled(one, 'support', false, opts), /only enabled mailbox/);
});

test('a JSON registry stays JSON', () => {
  const json = JSON.stringify(
    {
      version: 1,
      mailboxes: [
        { id: 'support', imap: { user: 'support@example.test', password: { env: 'SUPPORT_PW' } }, smtp: { from: 'support@example.test' } },
        { id: 'billing', imap: { user: 'billing@example.test', password: { env: 'BILLING_PW' } }, smtp: { from: 'billing@example.test' } },
      ],
    },
    null,
    2,
  );
  const out = setMailboxEnabled(json, 'billing', false, { json: true, defaults });
  const parsed = JSON.parse(out.text) as { mailboxes: Array<{ id: string; enabled?: boolean }> };
  assert.deepEqual(
    parsed.mailboxes.map((m) => [m.id, m.enabled]),
    [
      ['support', undefined],
      ['billing', false],
    ],
  );
});
