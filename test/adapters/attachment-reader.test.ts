/**
 * The attachment reader with real files made in the test (pdfkit, docx, an ODF zip, a PNG) and
 * hostile ones: each ends in a clear outcome within its limits, and the reader thread that was
 * stopped is replaced for the next file.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createAttachmentReader } from '../../src/attachments/attachment-reader';
import { detectContentType } from '../../src/attachments/attachment-type';
import { DEFAULT_ATTACHMENT_LIMITS } from '../../src/attachments/attachment-limits';
import type { AttachmentReadOutcome } from '../../src/attachments/attachments.port';
import {
  makeDocx,
  makeEncryptedOfficeContainer,
  makeInflatingPdf,
  makeNestedPdf,
  makeOdt,
  makePdf,
  makePng,
  makeZipBombDocx,
} from '../support/attachment-files';

const limits = { ...DEFAULT_ATTACHMENT_LIMITS, timeoutMs: 4_000, maxPages: 20, maxChars: 20_000 };
const reader = createAttachmentReader(limits);
/** What the bombs ended in, printed at the end (the outcome may be the time or the memory limit). */
const bombOutcomes: string[] = [];
after(async () => {
  await reader.close();
  for (const line of bombOutcomes) console.log(`hostile PDF ${line}`);
});

async function read(filename: string, content: Buffer, declaredType = 'application/octet-stream') {
  const detectedType = await detectContentType(content);
  const started = Date.now();
  const outcome = await reader.read({ filename, declaredType, detectedType, content });
  return { outcome, detectedType, ms: Date.now() - started };
}

const text = (o: AttachmentReadOutcome) => (o.state === 'extracted' ? o.pages.map((p) => `[p${p.page}] ${p.text}`).join('\n') : '');

test('PDF: each page read with its number; the amount of an invoice is in the text', async () => {
  const pdf = await makePdf(['Rechnung Nr. 2026-114', 'Gesamtbetrag: 1.234,56 EUR\nFällig am 15.12.2026']);
  const { outcome, detectedType } = await read('rechnung.pdf', pdf, 'application/pdf');
  assert.equal(detectedType, 'application/pdf');
  assert.equal(outcome.state, 'extracted', JSON.stringify(outcome));
  assert.match(text(outcome), /\[p1\] Rechnung Nr\. 2026-114/);
  assert.match(text(outcome), /\[p2\] Gesamtbetrag: 1\.234,56 EUR/);
});

test('DOCX and ODT: the paragraphs of the document', async () => {
  const docx = await read('beschwerde.docx', await makeDocx(['Sehr geehrte Damen und Herren,', 'die Lieferung 4711 kam beschädigt an.']));
  assert.equal(docx.detectedType, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
  assert.match(text(docx.outcome), /Lieferung 4711 kam beschädigt an/);
  const odt = await read('brief.odt', makeOdt(['Kündigung zum 31.12.', 'Kundennummer 55501 & Vertrag <A>']));
  assert.equal(odt.detectedType, 'application/vnd.oasis.opendocument.text');
  assert.match(text(odt.outcome), /Kundennummer 55501 & Vertrag <A>/);
});

test('text, CSV and HTML by their content; an image and an empty file hold no text', async () => {
  assert.match(text((await read('notiz.txt', Buffer.from('Bitte Termin verschieben.'))).outcome), /Termin verschieben/);
  const csv = await read('posten.csv', Buffer.from('Artikel;Preis\nKabel;9,90\n'), 'text/csv');
  assert.match(text(csv.outcome), /Kabel;9,90/);
  const html = await read('seite.html', Buffer.from('<html><body><p>Hallo <b>Welt</b></p><script>alert(1)</script></body></html>'));
  assert.equal(html.detectedType, 'text/html');
  assert.match(text(html.outcome), /Hallo WELT|Hallo Welt/);
  const png = await read('bild.png', makePng());
  assert.equal(png.detectedType, 'image/png');
  assert.deepEqual(png.outcome, { state: 'skipped', reason: 'image/png: not a text format' });
  assert.deepEqual((await read('leer.txt', Buffer.alloc(0))).outcome, { state: 'skipped', reason: 'empty file (0 bytes)' });
});

test('a file named .pdf whose content is HTML is HTML: read as text, named as such', async () => {
  const { outcome, detectedType } = await read(
    'rechnung.pdf',
    Buffer.from('<!DOCTYPE html><html><body>Bitte hier klicken</body></html>'),
    'application/pdf',
  );
  assert.equal(detectedType, 'text/html');
  assert.equal(outcome.state, 'extracted');
  assert.match(outcome.state === 'extracted' ? (outcome.note ?? '') : '', /named rechnung\.pdf but its content is HTML/);
});

test('password-protected PDF: named as encrypted', async () => {
  const pdf = await makePdf(['geheim'], { userPassword: 'secret', ownerPassword: 'owner' });
  const { outcome } = await read('geschuetzt.pdf', pdf, 'application/pdf');
  assert.deepEqual(outcome, { state: 'encrypted', reason: 'the PDF is password-protected' });
});

test('password-protected Word document (an OLE container holding EncryptedPackage): named as encrypted', async () => {
  const { outcome, detectedType } = await read(
    'vertrag.docx',
    makeEncryptedOfficeContainer(),
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  );
  assert.equal(detectedType, 'application/x-cfb');
  assert.deepEqual(outcome, { state: 'encrypted', reason: 'the Office document is password-protected' });
});

test('zip bomb named .docx: refused from its directory, nothing unpacked', async () => {
  const bomb = makeZipBombDocx(120);
  assert.ok(bomb.length < 2 * 1024 * 1024, `the bomb is small (${bomb.length} bytes)`);
  const { outcome } = await read('vertrag.docx', bomb, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
  assert.equal(outcome.state, 'unreadable');
  assert.match(
    outcome.state === 'unreadable' ? outcome.reason : '',
    /zip bomb: \d+ bytes that unpack to 1258\d{5} bytes \(limit 52428800\); not unpacked/,
  );
  // Refused from its directory: unpacking it would have ended at the time or the memory limit,
  // which would say so instead.
});

test('PDF with 3,000 pages: the first pages read, the rest named', async () => {
  const pages = Array.from({ length: 3_000 }, (_, i) => `Seite ${i + 1}`);
  const { outcome } = await read('katalog.pdf', await makePdf(pages), 'application/pdf');
  assert.equal(outcome.state, 'extracted');
  if (outcome.state !== 'extracted') return;
  assert.equal(outcome.pages.length, 20);
  // Read to its page limit, not cut by the time limit (that outcome is `unreadable`, "took longer than").
  assert.equal(outcome.note, 'pages 1–20 of 3000 read (limit 20)');
});

test('PDF whose content stream inflates to 200 MB: stopped at the time or memory limit; the next file is read', async () => {
  const { outcome, ms } = await read('bombe.pdf', makeInflatingPdf(200), 'application/pdf');
  assert.equal(outcome.state, 'unreadable', JSON.stringify(outcome).slice(0, 300));
  // Ended by a limit, which the reason names (the time limit itself: the test below).
  assert.match(outcome.state === 'unreadable' ? outcome.reason : '', /longer than 4000 ms|more than 256 MB|cut/);
  bombOutcomes.push(`inflating: ${JSON.stringify(outcome).slice(0, 200)} in ${ms} ms`);
  const next = await read('ok.txt', Buffer.from('danach geht es weiter'));
  assert.match(text(next.outcome), /danach geht es weiter/);
});

test('PDF with arrays nested 500,000 deep: a clear outcome, within the limits', async () => {
  const { outcome, ms } = await read('verschachtelt.pdf', makeNestedPdf(500_000), 'application/pdf');
  // pdf.js skips what it cannot parse: the text before the nesting is kept, or the file is named unreadable.
  if (outcome.state === 'extracted') assert.match(text(outcome), /vorher/);
  else assert.equal(outcome.state, 'unreadable');
  bombOutcomes.push(`nested: ${JSON.stringify(outcome).slice(0, 200)} in ${ms} ms`);
});

test('the time limit stops a read that takes longer, and says so', async () => {
  // A behaviour check, not a speed check: 3,000 pages with the page limit lifted cannot be read in
  // 50 ms on any machine, so the outcome is the time limit's; no clock is read by the test.
  const short = createAttachmentReader({ ...limits, timeoutMs: 50, maxPages: 100_000, maxChars: 100_000_000 });
  try {
    const pdf = await makePdf(Array.from({ length: 3_000 }, (_, i) => `Seite ${i + 1}`));
    const cut = await short.read({
      filename: 'katalog.pdf',
      declaredType: 'application/pdf',
      detectedType: 'application/pdf',
      content: pdf,
    });
    assert.deepEqual(cut, { state: 'unreadable', reason: 'reading took longer than 50 ms; stopped' });
  } finally {
    await short.close();
  }
});

test('a file above the size limit is not read', async () => {
  const small = createAttachmentReader({ ...limits, maxBytes: 1_000 });
  try {
    const outcome = await small.read({
      filename: 'gross.txt',
      declaredType: 'text/plain',
      detectedType: 'text/plain',
      content: Buffer.alloc(2_000, 0x61),
    });
    assert.deepEqual(outcome, { state: 'unreadable', reason: '2000 bytes, above the 1000 bytes read per attachment; stored, not read' });
  } finally {
    await small.close();
  }
});
