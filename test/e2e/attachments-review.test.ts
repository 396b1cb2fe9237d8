/**
 * Attachments in the review inbox, in Debian's Chromium: listed with size and the type their
 * content says, downloaded only as `attachment` with nosniff and a safe type (HTML named .pdf
 * goes out as application/octet-stream), and the mail's inline image shown from our own origin
 * under the inbox's CSP. Without a signed-in reviewer nothing is served.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser } from 'playwright-core';
import { detectContentType } from '../../src/attachments/attachment-type';
import { createMariaDbAttachmentStore } from '../../src/attachments/attachment-store.mariadb';
import { createMariaDbDraftStore } from '../../src/email/draft/draft-store.mariadb';
import type { TemporalDecisions } from '../../src/email/decisions/decisions.temporal';
import { loadConfig } from '../../src/config';
import { inboxOnDatabase } from '../support/inbox-app';
import { createTestDatabase } from '../support/database';
import { makePdf, makePng } from '../support/attachment-files';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: FastifyInstance;
let base: string;
let browser: Browser;
const emailId = 'email-review-attachments';
const reviewer = { 'x-forwarded-user': 'rita', 'accept-language': 'en' };

before(async () => {
  db = await createTestDatabase('attrev');
  await db.pool.query(
    `INSERT INTO emails (id, source, status, subject, from_address, from_name, text_body, has_html)
     VALUES (?, 'file', 'awaiting_approval', 'Rechnung falsch', 'erika@customer.example', 'Erika', 'Siehe Anhang. [Bild]', 1)`,
    [emailId],
  );
  const store = createMariaDbAttachmentStore(db.pool);
  const files = [
    { filename: 'rechnung.pdf', declaredType: 'application/pdf', content: await makePdf(['Betrag 1.234,56 EUR']) },
    { filename: 'logo.png', declaredType: 'image/png', content: makePng(16), contentId: 'logo@customer', disposition: 'inline' },
    { filename: 'scan.pdf', declaredType: 'application/pdf', content: Buffer.from('<html><body><script>alert(1)</script></body></html>') },
    {
      filename: 'bild.svg',
      declaredType: 'image/svg+xml',
      content: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'),
    },
  ];
  for (const [partIndex, f] of files.entries()) {
    await store.save(emailId, {
      partIndex,
      filename: f.filename,
      declaredType: f.declaredType,
      disposition: f.disposition ?? 'attachment',
      contentId: f.contentId ?? null,
      content: f.content,
      detectedType: await detectContentType(f.content),
    });
  }
  await store.saveText(emailId, 2, 'extracted', 'named scan.pdf but its content is HTML', [{ page: 1, text: 'x' }]);
  await store.saveText(emailId, 0, 'extracted', null, [{ page: 1, text: 'Betrag 1.234,56 EUR' }]);
  await createMariaDbDraftStore(db.pool).save({
    id: `${emailId}:draft:1`,
    emailId,
    version: 1,
    subject: 'Re: Rechnung falsch',
    body: 'Der Betrag von 1.234,56 EUR wird geprüft.',
    language: 'de',
    confidence: 0.5,
    drafter: 'test',
    model: 'test',
    promptVersion: 'test',
    contextIds: ['attachment:rechnung.pdf#p1'],
    flags: [],
    to: { name: 'Erika', address: 'erika@customer.example' },
  });
  app = await inboxOnDatabase(loadConfig({ DATABASE_URL: db.url, INBOX_AUTH: 'header' }, { imap: false }), db.pool, {
    decisions: { state: () => Promise.reject(new Error('no Temporal in this test')) } as unknown as TemporalDecisions,
    attachments: store,
  });
  base = await app.listen({ port: 0, host: '127.0.0.1' });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
});
after(async () => {
  await browser?.close();
  await app?.close();
  await db?.drop();
});

test('the review page lists each attachment with size and detected type and shows the inline image under the CSP', async () => {
  const context = await browser.newContext({ extraHTTPHeaders: reviewer });
  const page = await context.newPage();
  const blocked: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) blocked.push(m.text());
  });
  await page.goto(`${base}/email/${emailId}`);
  const list = await page.innerText('#attachments');
  assert.match(list, /rechnung\.pdf · \d+ KB · application\/pdf/);
  assert.match(list, /logo\.png · \d+ B · image\/png/);
  assert.match(list, /scan\.pdf · \d+ B · text\/html \(declared as application\/pdf\)/);
  assert.match(list, /named scan\.pdf but its content is HTML/);
  const img = page.locator('figure.inline-image img');
  assert.equal(await img.count(), 1, 'only the raster image is shown inline');
  assert.equal(await img.getAttribute('src'), `/email/${emailId}/inline/1`);
  assert.equal(await img.evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth), 16);
  assert.deepEqual(blocked, []);
  // The draft's cited attachment page opens as the model saw it.
  await page.click('#sources a');
  assert.match(await page.innerText('#source-text'), /Betrag 1\.234,56 EUR/);
  await context.close();
});

test('downloads: attachment disposition, nosniff, the CSP, never HTML or SVG as such; inline only for raster images', async () => {
  const get = (url: string, headers: Record<string, string> = reviewer) => app.inject({ url, headers });
  const pdf = await get(`/email/${emailId}/attachment/0`);
  assert.equal(pdf.statusCode, 200);
  assert.equal(pdf.headers['content-type'], 'application/pdf');
  assert.equal(pdf.headers['content-disposition'], `attachment; filename="rechnung.pdf"; filename*=UTF-8''rechnung.pdf`);
  assert.equal(pdf.headers['x-content-type-options'], 'nosniff');
  assert.match(String(pdf.headers['content-security-policy']), /default-src 'none'/);
  assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');
  for (const part of [2, 3]) {
    const hostile = await get(`/email/${emailId}/attachment/${part}`);
    assert.equal(hostile.statusCode, 200);
    assert.equal(hostile.headers['content-type'], 'application/octet-stream');
    assert.match(String(hostile.headers['content-disposition']), /^attachment;/);
  }
  assert.equal((await get(`/email/${emailId}/inline/1`)).headers['content-type'], 'image/png');
  assert.equal((await get(`/email/${emailId}/inline/3`)).statusCode, 404, 'SVG is never served inline');
  assert.equal((await get(`/email/${emailId}/inline/2`)).statusCode, 404);
  assert.equal((await get(`/email/${emailId}/attachment/9`)).statusCode, 404);
  assert.equal((await get(`/email/${emailId}/attachment/x`)).statusCode, 404);
  const anonymous = await get(`/email/${emailId}/attachment/0`, {});
  assert.notEqual(anonymous.statusCode, 200, 'no reviewer, no file');
  assert.doesNotMatch(anonymous.body, /%PDF/);
  // Every download is in the access log with the file; inline images belong to the page view.
  const downloads = (await db.pool.query(
    `SELECT actor, detail FROM access_log WHERE email_id = ? AND action = 'attachment_downloaded' ORDER BY id`,
    [emailId],
  )) as Array<{ actor: string; detail: string }>;
  assert.deepEqual(
    downloads.map((d) => [d.actor, d.detail]),
    [
      ['rita', 'part 1: rechnung.pdf'],
      ['rita', 'part 3: scan.pdf'],
      ['rita', 'part 4: bild.svg'],
    ],
  );
});
