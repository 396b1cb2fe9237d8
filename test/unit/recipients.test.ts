import assert from 'node:assert/strict';
import { test } from 'node:test';
import { envelopeMismatch, recipientProblem, replyToDiffers } from '../../src/email/send/recipients';

test('plain public addresses pass, including plus tags, subdomains and international letters', () => {
  for (const ok of [
    'erika@customer.example',
    'Erika.Mustermann+rechnung@mail.customer.example',
    "o'brien@example.ie",
    'jörg@müller.de',
    'x@a-b.co',
  ]) {
    assert.equal(recipientProblem(ok), null, ok);
  }
});

test('local and single-label names are refused', () => {
  for (const bad of [
    'root@localhost',
    'a@intranet',
    'a@printer.local',
    'a@db.internal',
    'a@host.localdomain',
    'a@router.home.arpa',
    'a@foo.localhost',
    'a@nowhere.invalid',
  ]) {
    assert.match(recipientProblem(bad) ?? '', /local|single-label/, bad);
  }
});

test('address literals, bare IPs and odd domains are refused', () => {
  for (const bad of [
    'a@[1.2.3.4]',
    'a@[IPv6:::1]',
    'a@1.2.3.4',
    'a@example.com.',
    'a@-bad.example',
    'a@bad-.example',
    'a@ex..ample',
    'a@',
  ]) {
    assert.notEqual(recipientProblem(bad), null, bad);
  }
});

test('quoted, odd and injected local parts are refused', () => {
  for (const bad of [
    '"quoted"@example.com',
    '"a@b"@example.com',
    '.lead@example.com',
    'trail.@example.com',
    'two..dots@example.com',
    'a b@example.com',
    'a@b@example.com',
    '@example.com',
    'a(comment)@example.com',
    'back\\slash@example.com',
    'x'.repeat(65) + '@example.com',
  ]) {
    assert.notEqual(recipientProblem(bad), null, bad);
  }
});

test('anything that could name a second mailbox or a header is refused', () => {
  for (const bad of [
    'a@example.com\r\nBcc: evil@attacker.example',
    'a@example.com\nX: y',
    'a@example.com, evil@attacker.example',
    'Evil <evil@attacker.example>',
    'a@example.com>',
    'a@example.com;evil@attacker.example',
    'a@example.com\u0000',
    '',
    'a'.repeat(250) + '@example.com',
  ]) {
    assert.notEqual(recipientProblem(bad), null, JSON.stringify(bad));
  }
});

test('reply_to_differs compares domains, case-insensitively, only when both are known', () => {
  assert.equal(replyToDiffers({ address: 'a@Customer.example' }, { address: 'b@customer.EXAMPLE' }), false);
  assert.equal(replyToDiffers({ address: 'a@customer.example' }, { address: 'b@elsewhere.example' }), true);
  assert.equal(replyToDiffers({ address: 'a@customer.example' }, null), false);
  assert.equal(replyToDiffers(null, { address: 'b@elsewhere.example' }), false);
});

test('the envelope check refuses anything but exactly our sender and the one approved recipient', () => {
  const expected = { from: 'support@example.test', to: 'erika@customer.example' };
  const good = { from: 'support@example.test', to: ['erika@customer.example'], accepted: ['erika@customer.example'] };
  assert.equal(envelopeMismatch(expected, good), null);
  assert.match(envelopeMismatch(expected, { ...good, from: 'other@example.test' }) ?? '', /MAIL FROM/);
  assert.match(envelopeMismatch(expected, { ...good, to: ['evil@attacker.example'] }) ?? '', /RCPT TO/);
  assert.match(envelopeMismatch(expected, { ...good, to: [...good.to, 'evil@attacker.example'] }) ?? '', /RCPT TO/);
  assert.match(envelopeMismatch(expected, { ...good, to: [] }) ?? '', /RCPT TO/);
  assert.match(envelopeMismatch(expected, { ...good, accepted: [] }) ?? '', /accepted/);
  assert.match(envelopeMismatch(expected, { ...good, accepted: ['evil@attacker.example'] }) ?? '', /accepted/);
  assert.match(envelopeMismatch(expected, { ...good, to: ['erika@customer.example '] }) ?? '', /RCPT TO/);
});

test('a reply to one of our own mailboxes is refused: mail between them is a loop', () => {
  const own = ['support@example.com', 'billing@shop.example'];
  assert.match(recipientProblem('Billing@Shop.example', own) ?? '', /one of our own mailboxes/);
  assert.equal(recipientProblem('erika@customer.example', own), null);
});
