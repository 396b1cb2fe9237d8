import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config';
import { ConfigError } from '../../src/platform/errors';
import { parseRoutingRules, readRoutingRules, routeFor, routedByPerson, ROUTED_BY, type RoutingFacts } from '../../src/cases/routing-rules';

const FILE = `
version: 1
rules:
  - name: vip
    match: { senderDomain: [bigcustomer.example, "*.partner.example"] }
    owner: rita
  - name: billing-de
    match:
      mailbox: billing
      category: [Invoice, payment]
      language: de
    team: billing
  - name: urgent
    match: { priority: [critical, high] }
    team: support
    owner: otto
  - name: rest
    team: support
`;

const facts = (over: Partial<RoutingFacts> = {}): RoutingFacts => ({
  mailbox: 'default',
  category: null,
  language: 'de',
  priority: 'normal',
  sender: 'kunde@example.org',
  ...over,
});

test('first match wins; every condition a rule names must hold, a list means any of its values', () => {
  const rules = parseRoutingRules(FILE);
  assert.deepEqual(
    rules.map((r) => r.name),
    ['vip', 'billing-de', 'urgent', 'rest'],
  );
  const name = (f: Partial<RoutingFacts>) => routeFor(rules, facts(f))?.name ?? null;
  assert.equal(name({ sender: 'a@bigcustomer.example', priority: 'critical' }), 'vip');
  assert.equal(name({ sender: 'a@BigCustomer.Example' }), 'vip', 'domains compare case-insensitively');
  assert.equal(name({ sender: 'a@eu.partner.example' }), 'vip', '*.domain matches a subdomain');
  assert.equal(name({ sender: 'a@x.eu.partner.example' }), 'vip');
  assert.equal(name({ sender: 'a@partner.example' }), 'rest', '*.domain does not match the domain itself');
  assert.equal(name({ sender: 'a@notbigcustomer.example' }), 'rest', 'an exact domain is not a suffix');
  assert.equal(name({ sender: 'a@bigcustomer.example.evil' }), 'rest');
  assert.equal(name({ mailbox: 'billing', category: 'invoice', language: 'de' }), 'billing-de', 'categories compare case-insensitively');
  assert.equal(name({ mailbox: 'billing', category: 'invoice', language: 'en' }), 'rest', 'the language must match too');
  assert.equal(name({ mailbox: 'billing', category: null }), 'rest', 'a rule naming a category needs one');
  assert.equal(name({ priority: 'high' }), 'urgent');
  assert.equal(name({}), 'rest', 'a rule without match is the catch-all');
  const urgent = routeFor(rules, facts({ priority: 'critical' }))!;
  assert.deepEqual({ team: urgent.team, owner: urgent.owner }, { team: 'support', owner: 'otto' });
  assert.equal(routeFor([], facts()), null, 'no rules: no routing');
});

test('routed_by tells a person from a rule', () => {
  assert.equal(ROUTED_BY.rule('vip'), 'rule:vip');
  assert.equal(routedByPerson(ROUTED_BY.person('rita')), true);
  assert.equal(routedByPerson(ROUTED_BY.rule('vip')), false);
  assert.equal(routedByPerson(null), false);
});

test('an invalid file lists every problem at once, each with its rule', () => {
  const bad = `
version: 2
extra: 1
rules:
  - name: ok
    team: a
  - name: ok
    team: b
  - name: "has space"
    match: { mailbox: nope, priority: urgent, senderDomain: ["*.", "a b"], language: german, colour: red }
  - name: empty
  - team: 7
  - "just a string"
  - name: list
    match: { category: [] }
    owner: "x\\u0007"
`;
  assert.throws(
    () => parseRoutingRules(bad, 'ROUTING_FILE r.yaml', ['default', 'billing']),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      const m = err.message;
      for (const part of [
        /^ROUTING_FILE r\.yaml: /,
        /version must be 1, got 2/,
        /(: |; )extra is not a known field \(known: version, rules\)/,
        /rules\[1\]: name "ok" is used twice/,
        /rules\[2\]\.name must be 1-64 letters/,
        /rules\[2\]\.match\.mailbox: mailbox "nope" is not in the registry \(default, billing\)/,
        /rules\[2\]\.match\.priority: "urgent" is not one of critical, high, normal, low/,
        /rules\[2\]\.match\.senderDomain: "\*\." is not a domain/,
        /rules\[2\]\.match\.senderDomain: "a b" is not a domain/,
        /rules\[2\]\.match\.language: "german" is not a language code/,
        /rules\[2\]\.match\.colour is not a known field \(known: mailbox, category, language, priority, senderDomain\)/,
        /rules\[2\] assigns nothing/,
        /rules\[3\] assigns nothing/,
        /rules\[4\]\.name must be/,
        /rules\[4\]\.team must be a name/,
        /rules\[5\] must be an object/,
        /rules\[6\]\.match\.category must not be an empty list/,
        /rules\[6\]\.owner must be a name/,
      ])
        assert.match(m, part);
      return true;
    },
  );
  for (const text of ['', 'rules: [', '[1, 2]', 'version: 1', 'version: 1\nrules: {}'])
    assert.throws(() => parseRoutingRules(text), ConfigError, JSON.stringify(text));
});

test('ROUTING_FILE: read at start with the registry, every problem in the one configuration error; absent: no routing', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'routing-'));
  const good = path.join(dir, 'routing.yaml');
  // Categories the installation's list has (compared without case, as routing compares).
  writeFileSync(
    good,
    FILE.replace('mailbox: billing', 'mailbox: default').replace('category: [Invoice, payment]', 'category: [Billing, delivery]'),
  );
  const config = loadConfig({ ROUTING_FILE: good }, { imap: false });
  assert.equal(config.routing?.rules.length, 4);
  // A rule naming a category the list lacks would never match: refused at start.
  writeFileSync(path.join(dir, 'unknown.yaml'), FILE.replace('mailbox: billing', 'mailbox: default'));
  assert.throws(
    () => loadConfig({ ROUTING_FILE: path.join(dir, 'unknown.yaml') }, { imap: false }),
    /ROUTING_FILE rule ".+" names category "invoice", which is not in the category list \(billing, delivery, .*general\)/,
  );
  assert.equal(loadConfig({}, { imap: false }).routing, undefined);
  // `billing` is not a mailbox of the single-account registry.
  writeFileSync(path.join(dir, 'bad.yaml'), FILE);
  assert.throws(
    () => loadConfig({ ROUTING_FILE: path.join(dir, 'bad.yaml'), INBOX_CLAIM_MINUTES: '0' }, { imap: false }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /mailbox "billing" is not in the registry \(default\)/);
      assert.match(err.message, /INBOX_CLAIM_MINUTES must be a whole number between 1 and 240/);
      return true;
    },
  );
  assert.throws(() => readRoutingRules(path.join(dir, 'missing.yaml')), /ROUTING_FILE cannot be read/);
  assert.equal(loadConfig({}, { imap: false }).inbox.claimMinutes, 5);
});
