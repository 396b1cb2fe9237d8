/**
 * Mail that machines send is never drafted: delivery reports however they are folded or wrapped,
 * abuse feedback reports (their own class), null return paths, list managers and auto-responder
 * headers; a message to several of our mailboxes is answered by one; bare CR and LF line ends parse.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { parseRawEmail } from '../../src/email/intake/mail-parser';
import { hasBareLineEnds, toCrlf } from '../../src/email/intake/line-endings';
import { parseTriageAllow, triage, triageMessage, type TriageMessage, type TriageSettings } from '../../src/triage/triage';
import { answeringMailbox } from '../../src/triage/triage-duplicate';

const DIR = path.join(__dirname, '../fixtures/triage');
const OURS: TriageSettings = { ownAddresses: ['support@example.test'], allow: [] };
const base: TriageMessage = { from: 'x@customer.example', replyTo: null, subject: 'Frage', headers: {}, partTypes: [] };
const classOf = (m: Partial<TriageMessage>, s: TriageSettings = OURS) => triage({ ...base, ...m }, s)?.class ?? null;

async function parsed(file: string) {
  return parseRawEmail(readFileSync(path.join(DIR, file)), file);
}

test('a report-type on a folded Content-Type line or on a nested part is a bounce; an attached bounce a person forwards is not', async () => {
  const folded = triage(triageMessage(await parsed('bounce-report-type-folded.eml')), OURS);
  assert.deepEqual(folded, { class: 'bounce', reason: 'multipart/report; report-type=delivery-status' });
  const nested = triage(triageMessage(await parsed('bounce-nested-report.eml')), OURS);
  assert.deepEqual(nested, { class: 'bounce', reason: 'multipart/report; report-type=delivery-status' });
  const forwarded = await parsed('customer-attaches-bounce.eml');
  assert.deepEqual(forwarded.triage.nestedReportTypes, [], 'the report inside the attached message is not ours');
  assert.equal(triage(triageMessage(forwarded), OURS), null);
  // Raw report text pasted into a person's mail: its boundaries were never declared, so it is text.
  const pasted = await parsed('customer-pastes-bounce.eml');
  assert.deepEqual([pasted.triage.nestedReportTypes, pasted.triage.attachesMessage], [[], false]);
  assert.equal(triage(triageMessage(pasted), OURS), null);
});

test('a "Mail Delivery System" sender name, or a null return path with a returned message, is a bounce', () => {
  assert.equal(classOf({ fromName: 'Mail Delivery System', from: 'mailer@mx.example' }), 'bounce');
  assert.equal(classOf({ fromName: 'Mailer Daemon', from: 'poostmaster@mx.example' }), 'bounce');
  assert.equal(classOf({ fromName: 'Mail Delivery Fan Club', from: 'fan@club.example' }), null);
  assert.equal(classOf({ headers: { 'return-path': ['<>'] }, attachesMessage: true }), 'bounce');
  assert.equal(classOf({ headers: { 'return-path': ['<>'] } }), 'auto_reply');
  assert.equal(classOf({ headers: { 'return-path': ['< >'] } }), 'auto_reply');
  assert.equal(classOf({ headers: { 'return-path': ['<erika@customer.example>'] } }), null);
  // A report type nobody sends us still marks a machine's report (not a read receipt, not ARF).
  assert.equal(classOf({ headers: { 'content-type': ['multipart/report; report-type=x-unknown'] } }), 'bounce');
  assert.equal(classOf({ headers: { 'content-type': ['multipart/report'] } }), 'bounce');
  assert.equal(classOf({ from: null, subject: '', headers: { 'content-type': ['message/delivery-status'] } }), 'bounce');
  assert.equal(classOf({ headers: { 'content-type': ['multipart/report; report-type=disposition-notification'] } }), 'auto_reply');
});

test('an abuse feedback report is its own class, which TRIAGE_ALLOW cannot open', async () => {
  const arf = triage(triageMessage(await parsed('arf-abuse-report.eml')), OURS);
  assert.equal(arf?.class, 'feedback_report');
  assert.match(arf!.reason, /report-type=feedback-report .*abuse complaint/);
  const allowAll: TriageSettings = { ...OURS, allow: parseTriageAllow('domain=isp.example').rules };
  assert.equal(triage(triageMessage(await parsed('arf-abuse-report.eml')), allowAll)?.class, 'feedback_report');
  assert.match(parseTriageAllow('feedback_report:domain=isp.example').problems[0] ?? '', /is not \[class:\]/);
  assert.match(parseTriageAllow('duplicate:domain=isp.example').problems[0] ?? '', /is not \[class:\]/);
  // Microsoft's older JMRP complaint: subject and attached message.
  assert.equal(classOf({ subject: 'complaint about message from 192.0.2.1', attachesMessage: true }), 'feedback_report');
  assert.equal(classOf({ subject: 'complaint about message from 192.0.2.1' }), null, 'a person may write that subject');
});

test('list managers and list headers are list mail; look-alike addresses are not', () => {
  for (const from of [
    'users-admin@lists.example',
    'users-request@lists.example',
    'users-owner@lists.example',
    'owner-users@lists.example',
    'users-bounces@lists.example',
    'users-bounces+erika=customer.example@lists.example',
  ]) {
    assert.equal(classOf({ from }), 'list', from);
  }
  for (const from of [
    'owner@shop.example',
    'request@shop.example',
    'admin@shop.example',
    'bounces-fan@shop.example',
    'ownership@x.example',
  ]) {
    assert.equal(classOf({ from }), null, from);
  }
  assert.equal(classOf({ headers: { 'list-post': ['<mailto:users@lists.example>'] } }), 'list');
  assert.equal(classOf({ headers: { 'x-mlserver': ['fml [fml 4.0.3]'] } }), 'list');
  assert.equal(classOf({ headers: { precedence: ['junk'] } }), 'list');
});

test("a return path that encodes a recipient (VERP) is bulk mail; a forwarder's SRS address or a plain one is not", () => {
  const verp = (returnPath: string, to = ['erika@customer.example']) => classOf({ headers: { 'return-path': [returnPath] }, to });
  assert.equal(verp('<bounces-main+erika=customer.example@shop.example>'), 'list');
  assert.equal(verp('<bounces+4711-ab12-erika=customer.example@em.shop.example>'), 'list');
  assert.equal(verp('<news-erika=customer.example@shop.example>', []), null, 'not one of the recipients');
  assert.equal(verp('<SRS0=Hq7=TT=customer.example=hans@forwarder.example>'), null, 'the sender encoded, not the recipient');
  assert.equal(verp('<hans@customer.example>'), null);
  assert.equal(verp('<>', []), 'auto_reply');
});

test('auto-responder headers: present means automatic, an explicit no does not', () => {
  const auto = (headers: Record<string, string[]>) => classOf({ headers });
  assert.equal(auto({ 'x-auto-response-suppress': ['All'] }), 'auto_reply');
  assert.equal(auto({ 'x-auto-response-suppress': ['OOF, AutoReply'] }), 'auto_reply');
  assert.equal(auto({ 'x-auto-response-suppress': ['DR, RN, NRN'] }), null, 'only receipts suppressed: a person may have sent it');
  assert.equal(auto({ 'x-autorespond': ['yes'] }), 'auto_reply');
  assert.equal(auto({ 'x-autoreply': ['no'] }), null);
  assert.equal(auto({ 'x-autogenerated': ['Reply'] }), 'auto_reply');
  assert.equal(auto({ 'x-cron-env': ['<SHELL=/bin/sh>'] }), 'auto_reply');
  assert.equal(auto({ precedence: ['auto_reply'] }), 'auto_reply');
  assert.equal(auto({ 'auto-submitted': ['auto-notified'] }), 'auto_reply');
  assert.equal(auto({ 'auto-submitted': ['no'] }), null);
  // RFC 3834 5.2 binds whatever TRIAGE_ALLOW says.
  const allow: TriageSettings = { ...OURS, allow: parseTriageAllow('sender=x@customer.example').rules };
  assert.equal(classOf({ headers: { 'auto-submitted': ['auto-replied'] } }, allow), 'auto_reply');
  assert.equal(classOf({ headers: { 'x-autoreply': ['yes'] } }, allow), null);
});

const MAILBOXES = [
  { id: 'support', addresses: ['support@example.test'] },
  { id: 'billing', addresses: ['billing@example.test', 'rechnung@example.test'] },
];
const REGISTRY: TriageSettings = { ...OURS, mailboxes: MAILBOXES };

test('a message to several of our mailboxes is answered by the first of ours in To, else in Cc; the other copy is a duplicate', () => {
  const toSupportCcBilling = { to: ['erika@customer.example', 'support@example.test'], cc: ['billing@example.test'] };
  assert.equal(classOf({ ...toSupportCcBilling, mailboxId: 'support' }, REGISTRY), null);
  const copy = triage({ ...base, ...toSupportCcBilling, mailboxId: 'billing' }, REGISTRY);
  assert.deepEqual(copy, {
    class: 'duplicate',
    reason: 'also delivered to mailbox support (support@example.test), which answers it',
  });
  // Only Cc names us: the first of ours there answers, by any of its addresses.
  const ccOnly = { to: ['team@customer.example'], cc: ['rechnung@example.test', 'support@example.test'] };
  assert.equal(classOf({ ...ccOnly, mailboxId: 'billing' }, REGISTRY), null);
  assert.equal(classOf({ ...ccOnly, mailboxId: 'support' }, REGISTRY), 'duplicate');
  assert.equal(answeringMailbox(['Support@Example.test'], [], MAILBOXES)?.id, 'support', 'addresses compare case-insensitively');
  // Bcc or an unknown alias: this copy cannot tell, and answers.
  assert.equal(classOf({ to: ['someone@else.example'], cc: [], mailboxId: 'billing' }, REGISTRY), null);
  // Addressed to support only, but it came to billing (Bcc, a forward, a server-side alias): billing
  // may hold the only copy, so it answers.
  assert.equal(classOf({ to: ['support@example.test'], cc: [], mailboxId: 'billing' }, REGISTRY), null);
  // One mailbox, or no registry: nothing to decide.
  assert.equal(classOf({ ...toSupportCcBilling, mailboxId: 'billing' }, { ...OURS, mailboxes: [MAILBOXES[1]!] }), null);
  assert.equal(classOf({ ...toSupportCcBilling, mailboxId: 'billing' }), null);
  // A copy that would not be answered anyway keeps the class that says why; a loop stays a loop.
  assert.equal(classOf({ ...toSupportCcBilling, mailboxId: 'billing', headers: { 'list-id': ['<l.example>'] } }, REGISTRY), 'list');
  assert.equal(classOf({ ...toSupportCcBilling, mailboxId: 'billing', from: 'support@example.test' }, REGISTRY), 'own_address');
  // TRIAGE_ALLOW cannot make both copies answer.
  const allow: TriageSettings = { ...REGISTRY, allow: parseTriageAllow('domain=customer.example').rules };
  assert.equal(classOf({ ...toSupportCcBilling, mailboxId: 'billing' }, allow), 'duplicate');
});

test('bare CR, bare LF and mixed line ends become CRLF before parsing', async () => {
  const cr = await parsed('customer-bare-cr.eml');
  assert.equal(cr.subject, 'Lieferung 4711 fehlt');
  assert.equal(cr.from?.address, 'hans.meier@kunde.example');
  assert.match(cr.text, /Lieferung 4711 ist noch nicht angekommen/);
  const mixed = await parsed('customer-mixed-line-ends.eml');
  assert.equal(mixed.subject, 'Lieferung 4712 fehlt');
  assert.equal(mixed.messageId, '<mixed-1@kunde.example>');
  assert.match(mixed.text, /wo bleibt Lieferung 4712\?/);

  assert.deepEqual(toCrlf(Buffer.from('a\rb\nc\r\nd\r\r\n\n')), Buffer.from('a\r\nb\r\nc\r\nd\r\n\r\n\r\n'));
  const clean = Buffer.from('a\r\nb\r\n');
  assert.equal(toCrlf(clean), clean, 'CRLF input is returned as it is, not copied');
  assert.equal(hasBareLineEnds(clean), false);
  assert.equal(hasBareLineEnds(Buffer.from('\n')), true);
  assert.equal(hasBareLineEnds(Buffer.from('x\r')), true);
  // 8-bit bytes pass untouched.
  assert.deepEqual(toCrlf(Buffer.from([0xfc, 0x0d, 0xe4])), Buffer.from([0xfc, 0x0d, 0x0a, 0xe4]));
});
