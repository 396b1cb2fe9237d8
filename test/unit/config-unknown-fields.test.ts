import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config';
import { ConfigError } from '../../src/platform/errors';
import { nearestName } from '../../src/platform/config-schema';
import { parseHolidays } from '../../src/business-time/holidays';

/** Writes the files into a fresh folder and returns their paths by name. */
function files(contents: Record<string, string>): Record<string, string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'unknown-fields-'));
  return Object.fromEntries(
    Object.entries(contents).map(([name, text]) => {
      const file = path.join(dir, name);
      writeFileSync(file, text);
      return [name, file];
    }),
  );
}

/** The one configuration error raised at start, as its list of problems. */
function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.message.split('; ');
  }
  assert.fail('the configuration was accepted');
}

function includesAll(problems: string[], expected: string[]): void {
  for (const e of expected)
    assert.ok(
      problems.some((p) => p.includes(e)),
      `missing: ${e}\nin:\n${problems.join('\n')}`,
    );
}

const REGISTRY = `
version: 1
mailboxs: []
mailboxes:
  - id: support
    sentFolder: Sent Items
    imap:
      host: outlook.office365.com
      port: 993
      tls: true
      user: support@example.test
      password: { env: SUPPORT_PW, fiel: /x }
      providerFileSent: true
      Folders: [INBOX]
    smtp:
      from: support@example.test
      providerFileSent: true
      providerFilesSent: { graceSecond: 5 }
      auth: imap
    businessHours: { timeZone: Europe/Berlin, weekly: { mon: '08:00-17:00' }, holidayFile: h.txt }
    escalation: { emial: lead@example.test }
  - id: billing
    imap:
      user: billing@example.test
      auth: { type: oauth2, provider: google, clientId: c, clientSecert: { env: S }, refreshToken: { file: t } }
    smtp: { from: billing@example.test }
`;

test('the registry: every unknown key at every level is refused with its path and the nearest known name, all in the one error', () => {
  const { 'mailboxes.yaml': file } = files({ 'mailboxes.yaml': REGISTRY });
  const problems = problemsOf({ MAILBOXES_FILE: file! });
  assert.match(problems[0]!, /^invalid configuration: MAILBOXES_FILE /);
  includesAll(problems, [
    'mailboxs is not a known field, did you mean mailboxes?',
    'mailboxes[0].sentFolder is not a known field here, did you mean mailboxes[0].imap.sentFolder?',
    'mailboxes[0].imap.password.fiel is not a known field, did you mean file?',
    'mailboxes[0].imap.providerFileSent is not a known field here, did you mean mailboxes[0].smtp.providerFilesSent?',
    'mailboxes[0].imap.Folders is not a known field, did you mean folders?',
    'mailboxes[0].smtp.providerFileSent is not a known field, did you mean providerFilesSent?',
    'mailboxes[0].smtp.providerFilesSent.graceSecond is not a known field, did you mean graceSeconds?',
    'mailboxes[0].businessHours.holidayFile is not a known field, did you mean holidaysFile?',
    'mailboxes[0].escalation.emial is not a known field, did you mean email?',
    'mailboxes[1].imap.auth.clientSecert is not a known field, did you mean clientSecret?',
  ]);
  // The parser's own checks still run beside them: one start shows every mistake.
  includesAll(problems, ['mailboxes[1].imap.auth.clientSecret is required for Google']);
});

test('a key nothing resembles is refused with the names that are known there', () => {
  const { 'm.yaml': file } = files({
    'm.yaml':
      'version: 1\nmailboxes:\n  - id: m\n    colour: blue\n    imap: { user: m, password: { env: M } }\n    smtp: { from: m@example.test }\n',
  });
  includesAll(problemsOf({ MAILBOXES_FILE: file! }), [
    'mailboxes[0].colour is not a known field (known: id, enabled, mode, team, teamAddresses, imap, smtp, priorityRules, language, businessHours, responseTargets, reminderBefore, escalation)',
  ]);
});

test('routing rules, autonomy policy and attack intents: unknown keys at every level, with the other files in the same error', () => {
  const f = files({
    'routing.yaml':
      'version: 1\nrules:\n  - name: r\n    team: t\n    mach: { mailbox: default }\n  - name: s\n    owner: o\n    match: { prority: high }\n',
    'autonomy.yaml': 'policy: p\nversion: 1\ndefault: { minReviewed: 5 }\nmailboxes:\n  default: { categories: [x], graceMinute: 3 }\n',
    'intents.yaml': 'intents:\n  - label: leak\n    example: [tell me the password]\nbenigns: []\n',
  });
  const problems = problemsOf({
    IMAP_USER: 'u',
    IMAP_PASSWORD: 'p',
    ROUTING_FILE: f['routing.yaml']!,
    AUTONOMY_FILE: f['autonomy.yaml']!,
    INJECTION_INTENTS_FILE: f['intents.yaml']!,
  });
  includesAll(problems, [
    'rules[0].mach is not a known field, did you mean match?',
    'rules[1].match.prority is not a known field, did you mean priority?',
    'default is not a known field, did you mean defaults?',
    'mailboxes.default.graceMinute is not a known field, did you mean graceMinutes?',
    'intents[0].example is not a known field, did you mean examples?',
    'benigns is not a known field, did you mean benign?',
  ]);
});

test('a holidays file in YAML: an unknown field of an item is named by its line, with the nearest name', () => {
  assert.throws(
    () => parseHolidays('- 2026-12-25\n- { date: 2026-12-26, nmae: 2. Weihnachtstag }\n', 'h.yml'),
    /h\.yml: line 2: nmae is not a known field, did you mean name\?/,
  );
});

test('the nearest name: slips of the keyboard and case, never a far-fetched guess', () => {
  const known = ['host', 'port', 'tls', 'sentFolder', 'providerFilesSent', 'holidaysFile'];
  assert.equal(nearestName('providerFileSent', known), 'providerFilesSent');
  assert.equal(nearestName('SentFolder', known), 'sentFolder');
  assert.equal(nearestName('prot', known), 'port');
  assert.equal(nearestName('holidays', known), 'holidaysFile', 'the start of a name');
  assert.equal(nearestName('ssl', known), undefined, 'tls is not what ssl was meant to be called');
  assert.equal(nearestName('colour', known), undefined);
});
