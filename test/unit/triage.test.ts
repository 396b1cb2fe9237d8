import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { parseRawEmail } from '../../src/email/intake/mail-parser';
import { loadConfig } from '../../src/config';
import { bouncedMessageIds, parseTriageAllow, triage, triageMessage, type TriageSettings } from '../../src/triage/triage';

const DIR = path.join(__dirname, '../fixtures/triage');
const OURS: TriageSettings = { ownAddresses: ['support@example.test'], allow: [] };

async function classify(file: string, settings: TriageSettings = OURS) {
  const raw = readFileSync(path.join(DIR, file));
  const parsed = await parseRawEmail(raw, file);
  return { verdict: triage(triageMessage(parsed), settings), parsed, raw };
}

const EXPECTED: Record<string, string | null> = {
  'bounce-postfix-dsn.eml': 'bounce',
  'bounce-exchange-unzustellbar.eml': 'bounce',
  'bounce-gmail-subject-only.eml': 'bounce',
  'ooo-de.eml': 'auto_reply',
  'ooo-de-subject-only.eml': 'auto_reply',
  'ooo-en.eml': 'auto_reply',
  'ooo-en-automatic-reply.eml': 'auto_reply',
  'read-receipt-de.eml': 'auto_reply',
  'list-mailman.eml': 'list',
  'newsletter-bulk.eml': 'list',
  'noreply.eml': 'no_reply',
  'spam-flagged.eml': 'spam',
  'loop-own-address.eml': 'own_address',
  // Mail a person wrote gets a draft, even when it mentions bounces or absence.
  'customer.eml': null,
  'customer-forwards-bounce.eml': null,
  'noreply-form-with-reply-to.eml': null,
  'bounce-report-type-folded.eml': 'bounce',
  'bounce-nested-report.eml': 'bounce',
  'arf-abuse-report.eml': 'feedback_report',
  'null-return-path-notice.eml': 'auto_reply',
  'list-owner-notice.eml': 'list',
  // A bounce attached by a person who asks about it; old-Mac and mixed line ends.
  'customer-attaches-bounce.eml': null,
  'customer-pastes-bounce.eml': null,
  'customer-bare-cr.eml': null,
  'customer-mixed-line-ends.eml': null,
};

test('every fixture lands in its class; mail a person wrote is not triaged', async () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.eml'));
  assert.deepEqual(files.sort(), Object.keys(EXPECTED).sort(), 'each fixture has an expectation');
  for (const file of files) {
    const { verdict } = await classify(file);
    assert.equal(verdict?.class ?? null, EXPECTED[file], `${file}: ${verdict?.reason ?? 'no verdict'}`);
    if (verdict) assert.ok(verdict.reason.length > 0 && !verdict.reason.includes('\n'), `${file}: one-line reason`);
  }
});

test('reasons name the header or pattern that decided', async () => {
  assert.match((await classify('bounce-postfix-dsn.eml')).verdict!.reason, /report-type=delivery-status/);
  assert.match((await classify('ooo-de.eml')).verdict!.reason, /^Auto-Submitted: auto-generated$/);
  assert.match((await classify('ooo-de-subject-only.eml')).verdict!.reason, /nicht im Büro/);
  assert.match((await classify('list-mailman.eml')).verdict!.reason, /^List-Id: /);
  assert.match((await classify('spam-flagged.eml')).verdict!.reason, /^X-Spam-Flag: YES/);
  assert.match((await classify('loop-own-address.eml')).verdict!.reason, /support@example\.test .*loop/);
});

test('a bounce names the Message-ID of the message it returns, wherever the report puts it', async () => {
  const postfix = await classify('bounce-postfix-dsn.eml');
  const ids = bouncedMessageIds(postfix.raw.toString('latin1'), postfix.parsed);
  assert.ok(ids.includes('<reply-5f1c0a9e2b7d4c3a8e6f1d2c3b4a5968@example.test>'), ids.join(' '));
  assert.ok(!ids.includes('<20241112091503.4Wq1Zk3Jz9z9sQ@mx.example.test>'), "the bounce's own id is not one of ours");
  const exchange = await classify('bounce-exchange-unzustellbar.eml');
  assert.ok(
    bouncedMessageIds(exchange.raw.toString('latin1'), exchange.parsed).includes('<reply-aa11bb22cc33dd44ee55ff6677889900@example.test>'),
  );
  // Subject-only bounce: nothing to link, and that is not an error.
  const gmail = await classify('bounce-gmail-subject-only.eml');
  assert.deepEqual(bouncedMessageIds(gmail.raw.toString('latin1'), gmail.parsed), []);
});

test('TRIAGE_ALLOW lets a sender through one class or all, never a mail loop', async () => {
  const allow = (text: string): TriageSettings => ({ ...OURS, allow: parseTriageAllow(text).rules });
  assert.equal((await classify('list-mailman.eml', allow('list:domain=opensource.example'))).verdict, null);
  assert.equal((await classify('newsletter-bulk.eml', allow('list:domain=opensource.example'))).verdict?.class, 'list');
  assert.equal((await classify('noreply.eml', allow('sender=no-reply@paket.example'))).verdict, null);
  // An allowed class does not hide another one: a subdomain matches, the class does not.
  assert.equal((await classify('ooo-de.eml', allow('list:domain=kunde-gmbh.example'))).verdict?.class, 'auto_reply');
  // RFC 3834 5.2: Auto-Submitted other than `no` is never answered, whatever TRIAGE_ALLOW says;
  // an out-of-office told by its subject only can be let through.
  assert.equal((await classify('ooo-de.eml', allow('domain=kunde-gmbh.example'))).verdict?.class, 'auto_reply');
  assert.equal((await classify('ooo-de-subject-only.eml', allow('domain=handwerk.example'))).verdict, null);
  assert.equal((await classify('loop-own-address.eml', allow('sender=support@example.test'))).verdict?.class, 'own_address');
});

test('TRIAGE_ALLOW and OWN_ADDRESSES are validated with every other variable, all problems at once', () => {
  const env = { IMAP_USER: 'u', IMAP_PASSWORD: 'p' };
  assert.throws(
    () =>
      loadConfig({
        ...env,
        TRIAGE_ALLOW: 'list:domain=ok.example;own_address:sender=a@b.example;weird=1;spam:domain=not a domain',
        OWN_ADDRESSES: 'help@example.test, not-an-address',
        IMAP_PORT: 'x',
      }),
    (err: Error) => {
      assert.match(err.message, /TRIAGE_ALLOW entry "own_address:sender=a@b\.example"/);
      assert.match(err.message, /TRIAGE_ALLOW entry "weird=1"/);
      assert.match(err.message, /TRIAGE_ALLOW entry "spam:domain=not a domain"/);
      assert.match(err.message, /OWN_ADDRESSES entry "not-an-address"/);
      assert.match(err.message, /IMAP_PORT/);
      return true;
    },
  );
  const config = loadConfig({
    ...env,
    SMTP_FROM: 'Support <Support@Example.test>',
    OWN_ADDRESSES: 'help@example.test;noreply@example.test',
  });
  assert.deepEqual(config.triage.ownAddresses, ['support@example.test', 'help@example.test', 'noreply@example.test']);
  assert.deepEqual(loadConfig({ ...env, TRIAGE_ALLOW: 'sender=Alerts@Bank.example' }).triage.allow, [
    { class: '*', kind: 'sender', value: 'alerts@bank.example' },
  ]);
});

test('hostile header values do not throw and do not over-match', () => {
  const base = { from: 'x@customer.example', replyTo: null, subject: 'Frage', partTypes: [] };
  assert.equal(triage({ ...base, headers: { 'auto-submitted': ['No'] } }, OURS), null);
  assert.equal(triage({ ...base, headers: { 'x-spam-flag': ['NO'], 'x-spam-status': ['No, score=-1.0'] } }, OURS), null);
  assert.equal(triage({ ...base, headers: { precedence: ['first-class'] } }, OURS), null);
  assert.equal(triage({ ...base, from: 'noreplying.fan@customer.example', headers: {} }, OURS), null);
  assert.equal(triage({ ...base, from: 'gmail-noreply@google.example', headers: {} }, OURS)?.class, 'no_reply');
  assert.equal(triage({ ...base, from: 'do_not_reply.billing@bank.example', headers: {} }, OURS)?.class, 'no_reply');
  assert.equal(triage({ ...base, from: 'mailer-daemon-fan@x.example', headers: {} }, OURS)?.class, 'bounce');
  assert.equal(triage({ ...base, from: null, subject: '', headers: { 'content-type': [''] } }, OURS), null);
  assert.equal(triage({ ...base, subject: 'Re: Out of office policy question', headers: {} }, OURS), null);
});
