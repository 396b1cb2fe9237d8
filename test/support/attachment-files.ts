/**
 * Real attachment files made by real tools for the tests: PDFs (pdfkit, also password-protected),
 * Word documents (docx), an ODF text (the zip layout written with fflate), a PNG, and hostile
 * files: a zip bomb named .docx, HTML named .pdf, a PDF with thousands of pages, a PDF whose one
 * content stream inflates to hundreds of megabytes.
 */
import { deflateSync } from 'node:zlib';
import { Document, Packer, Paragraph, TextRun } from 'docx';
import { strToU8, zipSync } from 'fflate';
import MailComposer from 'nodemailer/lib/mail-composer';
import PDFDocument from 'pdfkit';

export async function makePdf(pages: string[], options: { userPassword?: string; ownerPassword?: string } = {}): Promise<Buffer> {
  const doc = new PDFDocument({ ...options, pdfVersion: options.userPassword ? '1.7' : '1.4', info: { Title: 'Test' } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));
  pages.forEach((text, i) => {
    if (i > 0) doc.addPage();
    doc.fontSize(12).text(text);
  });
  doc.end();
  return done;
}

export async function makeDocx(paragraphs: string[]): Promise<Buffer> {
  const doc = new Document({ sections: [{ children: paragraphs.map((p) => new Paragraph({ children: [new TextRun(p)] })) }] });
  return Packer.toBuffer(doc);
}

/** An ODF text document: mimetype first and stored, content.xml with paragraphs, a manifest. */
export function makeOdt(paragraphs: string[]): Buffer {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const content = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">
<office:body><office:text>${paragraphs.map((p) => `<text:p>${esc(p)}</text:p>`).join('')}</office:text></office:body></office:document-content>`;
  const manifest = `<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">
<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>
<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`;
  return Buffer.from(
    zipSync({
      mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }],
      'content.xml': strToU8(content),
      'META-INF/manifest.xml': strToU8(manifest),
    }),
  );
}

/** A zip named like a Word document whose document.xml unpacks to `megabytes` MB (of a few hundred KB). */
export function makeZipBombDocx(megabytes = 300): Buffer {
  const big = new Uint8Array(megabytes * 1024 * 1024).fill(0x20);
  return Buffer.from(
    zipSync({
      '[Content_Types].xml': strToU8('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
      'word/document.xml': [big, { level: 9 }],
    }),
  );
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/** A real PNG (RGB, `size`×`size`, one colour). */
export function makePng(size = 8, rgb: [number, number, number] = [200, 30, 30]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => rgb).flat())]);
  const idat = deflateSync(Buffer.concat(Array.from({ length: size }, () => row)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A hand-written PDF of one page with this content stream (Flate-compressed when `compress`). */
function onePagePdf(content: Buffer, compress: boolean): Buffer {
  const stream = compress ? deflateSync(content, { level: 9 }) : content;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    null,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let at = parts[0]!.length;
  objects.forEach((o, i) => {
    offsets.push(at);
    const body =
      o === null
        ? Buffer.concat([
            Buffer.from(`${i + 1} 0 obj\n<< /Length ${stream.length}${compress ? ' /Filter /FlateDecode' : ''} >>\nstream\n`),
            stream,
            Buffer.from('\nendstream\nendobj\n'),
          ])
        : Buffer.from(`${i + 1} 0 obj\n${o}\nendobj\n`);
    parts.push(body);
    at += body.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** A PDF bomb: one page whose content stream inflates to `megabytes` MB of text operators. */
export function makeInflatingPdf(megabytes = 400): Buffer {
  const op = Buffer.from('BT /F1 12 Tf 10 10 Td (bomb) Tj ET\n');
  const plain = Buffer.alloc(megabytes * 1024 * 1024);
  for (let i = 0; i + op.length <= plain.length; i += op.length) op.copy(plain, i);
  return onePagePdf(plain, true);
}

/** A PDF bomb: a content stream of arrays nested `depth` deep (a parser that recurses overflows its stack). */
export function makeNestedPdf(depth = 500_000): Buffer {
  return onePagePdf(Buffer.from(`BT /F1 12 Tf 10 10 Td (vorher) Tj ET\n${'['.repeat(depth)}${']'.repeat(depth)} TJ\n`), true);
}

export interface TestAttachment {
  filename?: string;
  content: Buffer | string;
  contentType?: string;
  cid?: string;
  contentDisposition?: 'attachment' | 'inline';
}

/** A customer's mail with these attachments, composed by nodemailer as a mail client would. */
export async function mailWithAttachments(opts: {
  subject: string;
  text: string;
  html?: string;
  attachments: TestAttachment[];
  from?: string;
  messageId?: string;
}): Promise<Buffer> {
  return new MailComposer({
    from: opts.from ?? 'Erika Mustermann <erika@customer.example>',
    to: 'support@example.com',
    subject: opts.subject,
    text: opts.text,
    html: opts.html,
    messageId: opts.messageId,
    date: new Date('2026-12-02T09:30:00Z'),
    attachments: opts.attachments,
  })
    .compile()
    .build();
}

/**
 * The container Word uses for a password-protected .docx: an OLE compound file whose streams are
 * EncryptionInfo and EncryptedPackage. Only its header and directory names are written here (no
 * tool in reach encrypts Office files): enough for what the reader looks at.
 */
export function makeEncryptedOfficeContainer(): Buffer {
  const file = Buffer.alloc(1536);
  Buffer.from('d0cf11e0a1b11ae1', 'hex').copy(file, 0);
  file.writeUInt16LE(0x003e, 24);
  file.writeUInt16LE(0x0003, 26);
  file.writeUInt16LE(0xfffe, 28);
  file.writeUInt16LE(9, 30);
  Buffer.from('EncryptionInfo', 'utf16le').copy(file, 512);
  Buffer.from('EncryptedPackage', 'utf16le').copy(file, 640);
  return file;
}
