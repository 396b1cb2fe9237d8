import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config';
import { ConfigError } from '../../src/platform/errors';
import {
  SENT_LOOKUP_DEFAULTS,
  describeSecret,
  parseMailboxRegistry,
  resolveSecret,
  type MailboxDefaults,
} from '../../src/mailboxes/mailbox-registry';

const defaults: MailboxDefaults = {
  imap: { host: 'imap.example.test', port: 993, tls: true, sentFolder: 'Sent', pollIntervalSeconds: 60 },
  smtp: { host: 'smtp.example.test', port: 587, tls: false, timeoutMs: 60_000 },
  language: 'de',
};

const TWO = `
version: 1
mailboxes:
  - id: support
    imap: { user: support@example.test, password: { env: SUPPORT_IMAP_PASSWORD } }
    smtp:
      from: '"Support" <support@example.test>'
      signature: "-- \\nSupport team"
  - id: billing
    team: finance
    language: en
    priorityRules: ['high:keyword=mahnung']
    imap:
      host: imap.other.test
      port: 143
      tls: false
      user: billing
      password: { file: ./billing.secret }
      folders: [INBOX, Rechnungen]
      sentFolder: Gesendet
      pollIntervalSeconds: 300
    smtp: { host: smtp.other.test, user: billing, password: { env: BILLING_SMTP }, from: billing@other.test }
`;

test('a YAML registry with two mailboxes: defaults fill the gaps, secrets stay references', () => {
  const [support, billing] = parseMailboxRegistry(TWO, defaults);
  assert.equal(support!.id, 'support');
  assert.deepEqual(support!.imap.folders, ['INBOX']);
  assert.equal(support!.imap.host, 'imap.example.test');
  assert.equal(support!.imap.port, 993);
  assert.deepEqual(support!.imap.password, { env: 'SUPPORT_IMAP_PASSWORD' });
  assert.deepEqual(support!.smtp.from, { name: 'Support', address: 'support@example.test' });
  assert.equal(support!.smtp.signature, '-- \nSupport team');
  assert.equal(support!.team, 'account:support@example.test', 'each account is its own team by default');
  assert.equal(support!.enabled, true);
  assert.equal(billing!.team, 'finance');
  assert.equal(billing!.language, 'en');
  assert.deepEqual(billing!.imap.folders, ['INBOX', 'Rechnungen']);
  assert.equal(billing!.imap.sentFolder, 'Gesendet');
  assert.equal(billing!.imap.pollIntervalSeconds, 300);
  assert.ok('file' in billing!.imap.password! && path.isAbsolute(billing!.imap.password.file));
  assert.deepEqual(billing!.priorityRules, [{ priority: 'high', kind: 'keyword', value: 'mahnung' }]);
  assert.equal(describeSecret(billing!.smtp.password), '$BILLING_SMTP');
});

test('JSON reads the same as YAML', () => {
  const json = JSON.stringify({
    version: 1,
    mailboxes: [{ id: 'info', imap: { user: 'info', password: { env: 'INFO_PW' } }, smtp: { from: 'info@example.test' } }],
  });
  const [info] = parseMailboxRegistry(json, defaults);
  assert.equal(info!.id, 'info');
  assert.equal(info!.smtp.host, 'smtp.example.test');
});

test('smtp.providerFilesSent: true takes the default lookup, an object tunes it, absent or false means none', () => {
  const entry = (smtp: string) =>
    parseMailboxRegistry(
      `version: 1\nmailboxes:\n  - id: m\n    imap: { user: m, password: { env: M } }\n    smtp: { from: m@example.test${smtp} }\n`,
      defaults,
    )[0]!;
  assert.equal(entry('').smtp.providerFilesSent, undefined);
  assert.equal(entry(', providerFilesSent: false').smtp.providerFilesSent, undefined);
  assert.deepEqual(entry(', providerFilesSent: true').smtp.providerFilesSent, SENT_LOOKUP_DEFAULTS);
  assert.deepEqual(entry(', providerFilesSent: { graceSeconds: 10 }').smtp.providerFilesSent, { graceSeconds: 10, attempts: 3 });
  assert.deepEqual(entry(', providerFilesSent: { graceSeconds: 2, attempts: 6 }').smtp.providerFilesSent, { graceSeconds: 2, attempts: 6 });
});

test('smtp.providerFilesSent: hostile values are refused with the entry named', () => {
  const refused = (value: string, problem: RegExp) =>
    assert.throws(
      () =>
        parseMailboxRegistry(
          `version: 1\nmailboxes:\n  - id: m\n    imap: { user: m, password: { env: M } }\n    smtp: { from: m@example.test, providerFilesSent: ${value} }\n`,
          defaults,
        ),
      (err: unknown) =>
        err instanceof ConfigError && /mailboxes\[0\]\.smtp\.providerFilesSent/.test(err.message) && problem.test(err.message),
    );
  refused('"yes"', /must be true, false or \{ graceSeconds, attempts \}/);
  refused('1', /must be true, false/);
  refused('[true]', /must be true, false/);
  refused('{ graceSeconds: 0 }', /graceSeconds must be a whole number between 1 and 30/);
  refused('{ graceSeconds: 2.5 }', /graceSeconds must be a whole number/);
  refused('{ attempts: -1 }', /attempts must be a whole number between 1 and 10/);
  refused('{ attempts: "3" }', /attempts must be a whole number/);
  refused('{ graceSeconds: 30, attempts: 3 }', /at most 60 seconds, got 90/);
  refused('{ grace: 5 }', /mailboxes\[0\]\.smtp\.providerFilesSent\.grace is not a known field, did you mean graceSeconds\?/);
});

test('every problem of a bad registry is named with its entry, and nothing half-loads', () => {
  const bad = `
version: 2
mailboxes:
  - id: Support!
    imap: { user: a, password: hunter2, folders: [] }
    smtp: { from: nobody, user: x }
    colour: blue
  - id: dup
    imap: { user: b, password: { env: B } }
    smtp: { from: b@example.test }
  - id: dup
    imap: { user: b, password: { env: B } }
    smtp: { from: b@example.test }
`;
  assert.throws(
    () => parseMailboxRegistry(bad, defaults),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      for (const part of [
        'version must be 1',
        'mailboxes[0].id must be',
        'mailboxes[0].imap.password must reference the secret',
        'mailboxes[0].imap.folders must be a non-empty list',
        'mailboxes[0].smtp.from is not an email address',
        'mailboxes[0].smtp.password is required when smtp.user is set',
        'mailboxes[0].colour is not a known field (known: id, enabled, mode, team, teamAddresses, imap, smtp, priorityRules, language, businessHours',
        'mailboxes[2]: id "dup" is used twice',
        'mailboxes "dup" and "dup" both watch INBOX of b',
      ]) {
        assert.ok(err.message.includes(part), `${part} missing in: ${err.message}`);
      }
      assert.ok(!err.message.includes('hunter2'), 'a literal password is never echoed');
      return true;
    },
  );
  assert.throws(() => parseMailboxRegistry('mailboxes: [', defaults), /not valid YAML or JSON/);
  assert.throws(() => parseMailboxRegistry('- just a list', defaults), /expected an object/);
});

test('secrets: read from the named variable or file, errors name the reference and never a value', () => {
  assert.equal(resolveSecret({ env: 'PW' }, { PW: 's3cret' }), 's3cret');
  assert.throws(() => resolveSecret({ env: 'PW' }, {}), /secret variable PW is not set/);
  const dir = mkdtempSync(path.join(tmpdir(), 'mbx-'));
  const file = path.join(dir, 'pw');
  writeFileSync(file, 'from-file\n');
  assert.equal(resolveSecret({ file }), 'from-file');
  assert.throws(() => resolveSecret({ file: path.join(dir, 'missing') }), /secret file .*missing cannot be read/);
});

test('config: the single-account variables are the default mailbox; MAILBOXES_FILE replaces them', () => {
  const single = loadConfig({ IMAP_USER: 'support@example.test', IMAP_PASSWORD: 'pw', SMTP_FROM: 'Support <support@example.test>' });
  assert.equal(single.mailboxes.length, 1);
  const [d] = single.mailboxes;
  assert.equal(d!.id, 'default');
  assert.deepEqual(d!.imap.password, { env: 'IMAP_PASSWORD' }, 'the password stays in its variable');
  assert.deepEqual(d!.imap.folders, ['INBOX']);
  assert.deepEqual(d!.smtp.from, { name: 'Support', address: 'support@example.test' });

  const dir = mkdtempSync(path.join(tmpdir(), 'mbx-'));
  const file = path.join(dir, 'mailboxes.yaml');
  writeFileSync(file, TWO);
  const multi = loadConfig({ MAILBOXES_FILE: file, IMAP_HOST: 'imap.example.test' });
  assert.deepEqual(
    multi.mailboxes.map((m) => m.id),
    ['support', 'billing'],
    'IMAP_USER and IMAP_PASSWORD are not needed with a registry file',
  );
  assert.equal(multi.mailboxes[0]!.imap.host, 'imap.example.test');
  assert.throws(() => loadConfig({ MAILBOXES_FILE: path.join(dir, 'none.yaml') }), /MAILBOXES_FILE cannot be read/);
  writeFileSync(
    file,
    TWO.replace(/- id: support/, '- id: support\n    enabled: false').replace(/- id: billing/, '- id: billing\n    enabled: false'),
  );
  assert.throws(() => loadConfig({ MAILBOXES_FILE: file }), /no mailbox is enabled/);
});

test('smtp.signatureHtml, smtp.logo and smtp.replyFormat: read, resolved, and every bad value named', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'registry-logo-'));
  const logo = path.join(dir, 'logo.png');
  writeFileSync(logo, 'png');
  const entry = (smtp: string) =>
    parseMailboxRegistry(
      `version: 1\nmailboxes:\n  - id: m\n    imap: { user: m, password: { env: M } }\n    smtp: { from: m@example.test, ${smtp} }\n`,
      defaults,
    )[0]!;
  const read = entry(`signatureHtml: "<p><b>Support</b></p>", logo: ${JSON.stringify(logo)}`);
  assert.equal(read.smtp.signatureHtml, '<p><b>Support</b></p>');
  assert.equal(read.smtp.logo, logo);
  assert.equal(read.smtp.replyFormat, undefined, 'html is the default');
  assert.equal(entry('replyFormat: text').smtp.replyFormat, 'text');
  const refused = (smtp: string, problem: RegExp) =>
    assert.throws(
      () => entry(smtp),
      (err: unknown) => err instanceof ConfigError && problem.test(err.message),
    );
  refused('logo: logo.svg', /\.smtp\.logo must be a PNG, JPEG or GIF file, got "logo\.svg"/);
  refused(`logo: ${JSON.stringify(path.join(dir, 'missing.png'))}`, /\.smtp\.logo: cannot read .*missing\.png/);
  refused('replyFormat: mime', /\.smtp\.replyFormat must be html or text, got "mime"/);
});
