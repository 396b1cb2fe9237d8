/**
 * A reply as the customer gets it: sent through the real send step to the SMTP listener from a
 * registry mailbox with an HTML signature and a logo, then read as a mail client would: the HTML
 * part rendered in Chromium (the quoted original and the signature visible, the logo shown,
 * nothing of the customer's text made a link or run), the plain part readable on its own
 * (format=flowed, short lines, the quote beneath). The Sent folder holds exactly the bytes sent, once.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { simpleParser } from 'mailparser';
import { chromium, type Browser } from 'playwright-core';
import { loadConfig } from '../../src/config';
import { makePng } from '../support/attachment-files';
import { withImap } from '../support/imap-session';
import { MAILBOX_PASSWORD, MAILBOX_USER, startStack, type TestStack } from '../support/stack';
import { activityHarness, inboxDelivery } from './support';

let stack: TestStack;
let h: ReturnType<typeof activityHarness>;
let deliver: ReturnType<typeof inboxDelivery>;
let browser: Browser;

before(async () => {
  stack = await startStack({ temporal: false });
  const logo = path.join(stack.dir, 'logo.png');
  writeFileSync(logo, makePng(40, [20, 90, 200]));
  const registry = path.join(stack.dir, 'mailboxes.json');
  writeFileSync(
    registry,
    JSON.stringify({
      version: 1,
      mailboxes: [
        {
          id: 'default',
          imap: { user: MAILBOX_USER, password: { env: 'SUPPORT_PW' } },
          smtp: {
            from: `Beispiel GmbH Support <${MAILBOX_USER}>`,
            signature: 'Ihr Support-Team\nBeispiel GmbH · Musterstraße 1 · 12345 Berlin',
            signatureHtml: '<p><strong>Ihr Support-Team</strong><br>Beispiel GmbH · Musterstraße 1 · 12345 Berlin</p>',
            logo,
          },
        },
      ],
    }),
  );
  h = activityHarness(loadConfig({ ...stack.env, MAILBOXES_FILE: registry, SUPPORT_PW: MAILBOX_PASSWORD }));
  deliver = inboxDelivery(stack, h);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
});
after(async () => {
  await browser?.close();
  await h?.close();
  await stack?.stop();
});

const customerMail = [
  'From: Erika Mustermann <erika@customer.example>',
  `To: Support <${MAILBOX_USER}>`,
  'Subject: Rechnung 2026-114 falsch',
  'Message-ID: <html-reply-1@customer.example>',
  'Date: Wed, 02 Dec 2026 10:15:00 +0100',
  'MIME-Version: 1.0',
  'Content-Type: text/plain; charset=utf-8',
  'Content-Transfer-Encoding: 8bit',
  '',
  'Guten Tag,',
  '',
  'der Betrag auf der Rechnung 2026-114 ist falsch. Siehe https://customer.example/rechnung <b>bitte prüfen</b>',
  '',
  'Viele Grüße',
  'Erika Mustermann',
  '',
  'Am 1. Dezember 2026 schrieb Support:',
  '> Ältere Nachricht, die nicht noch einmal zitiert wird.',
  '',
].join('\r\n');

test('the reply is multipart/alternative: HTML with signature, logo and quote in Chromium; the plain part alone; Sent once', async () => {
  const { emailId, source } = await deliver(customerMail);
  await h.run(emailId, h.activities.fetchEmail, { emailId, source });
  await h.run(emailId, h.activities.parseEmail, { emailId });
  await h.run(emailId, h.activities.indexEmail, { emailId });
  const draft = await h.run(emailId, h.activities.draftReply, { emailId, version: 1, record: { seq: 1 } });
  const body =
    'Guten Tag Frau Mustermann,\n\nvielen Dank für Ihren Hinweis. Wir haben die Rechnung 2026-114 geprüft und den Betrag korrigiert; die neue Rechnung kommt in den nächsten Tagen per Post und als PDF. <script>alert(1)</script> www.example.com\n\nMit freundlichen Grüßen';
  await h.run(emailId, h.activities.recordDecision, {
    emailId,
    draftId: draft.draftId,
    decision: { kind: 'approve', by: 'tester', body },
    record: { seq: 2 },
  });
  const sent = await h.run(emailId, h.activities.sendReply, { emailId, draftId: draft.draftId });
  assert.equal(sent.outcome, 'sent');

  const received = stack.smtp.messages.filter((r) => r.raw.toString('utf8').includes(sent.messageId));
  assert.equal(received.length, 1);
  const raw = received[0]!.raw;
  const head = raw.toString('utf8');
  assert.match(head, /Content-Type: multipart\/alternative;/);
  assert.match(head, /Content-Type: text\/plain; charset=utf-8; format=flowed/);
  assert.match(head, /Content-Type: multipart\/related; type="text\/html"/);
  assert.match(head, /Content-ID: <logo@signature>/);

  const mail = await simpleParser(raw);
  // The plain part on its own: short lines, the signature, the attribution and the last message quoted.
  const plainPart = /format=flowed\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n([\s\S]*?)\r\n----_/.exec(head)?.[1] ?? '';
  const plainLines = plainPart
    .replace(/=\r\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, x: string) => String.fromCharCode(parseInt(x, 16)))
    .split('\r\n');
  assert.ok(
    plainLines.every((l) => Buffer.byteLength(l.replace(/ $/, ''), 'latin1') <= 78),
    plainLines.join('\n'),
  );
  const text = mail.text ?? '';
  assert.match(text, /vielen Dank für Ihren Hinweis/);
  assert.match(text, /\n-- \nIhr Support-Team\nBeispiel GmbH/);
  assert.match(text, /Am 2\. Dezember 2026 schrieb Erika Mustermann:\n> Guten Tag,/);
  assert.match(text, /> der Betrag auf der Rechnung 2026-114 ist falsch\./);
  assert.doesNotMatch(text, /Ältere Nachricht/, 'only the last message is quoted');
  assert.doesNotMatch(text, /<p>|<br>/);

  // The HTML part as a client shows it: cid: images from the message's own parts.
  let html = typeof mail.html === 'string' ? mail.html : '';
  for (const a of mail.attachments)
    if (a.cid) html = html.replace(`cid:${a.cid}`, `data:${a.contentType};base64,${a.content.toString('base64')}`);
  const page = await browser.newPage({ javaScriptEnabled: true });
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.setContent(html, { waitUntil: 'load' });
  const shown = await page.innerText('body');
  assert.match(shown, /vielen Dank für Ihren Hinweis/);
  assert.match(shown, /<script>alert\(1\)<\/script>/, 'the reviewer’s text is shown as written, not run');
  assert.match(shown, /Ihr Support-Team\nBeispiel GmbH/);
  assert.match(shown, /Am 2\. Dezember 2026 schrieb Erika Mustermann:/);
  assert.match(shown, /der Betrag auf der Rechnung 2026-114 ist falsch\. Siehe https:\/\/customer\.example\/rechnung <b>bitte prüfen<\/b>/);
  assert.equal(await page.locator('a').count(), 0, 'no link is made from any text');
  assert.equal(await page.locator('blockquote[type=cite]').count(), 1);
  assert.equal(await page.locator('strong', { hasText: 'Ihr Support-Team' }).count(), 1, 'the HTML signature');
  const logoWidth = await page.locator('.signature img').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth);
  assert.equal(logoWidth, 40, 'the logo is shown from its cid: part');
  assert.deepEqual(dialogs, []);
  await page.close();

  // The Sent folder holds those very bytes, once; the Message-ID is the deterministic one.
  const copies = await withImap(
    { host: stack.dovecot.host, port: stack.dovecot.port, user: MAILBOX_USER, password: MAILBOX_PASSWORD },
    async (c) => {
      await c.mailboxOpen('Sent');
      const uids = await c.search({ header: { 'message-id': sent.messageId } }, { uid: true });
      const out: Buffer[] = [];
      for (const uid of Array.isArray(uids) ? uids : []) {
        const m = await c.fetchOne(String(uid), { source: true }, { uid: true });
        if (m && m.source) out.push(m.source);
      }
      return out;
    },
  );
  assert.equal(copies.length, 1);
  assert.equal(copies[0]!.toString('utf8').replace(/\r\n/g, '\n'), raw.toString('utf8').replace(/\r\n/g, '\n'));
  const again = await h.run(emailId, h.activities.sendReply, { emailId, draftId: draft.draftId });
  assert.equal(again.messageId, sent.messageId);
});
