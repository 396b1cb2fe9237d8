import { randomBytes } from 'node:crypto';

/**
 * A real-world-shaped large mail: a short text and a base64 attachment (as a scanned PDF or a
 * phone video would be), `totalBytes` in all, give or take a few hundred bytes.
 */
export function largeEmail(opts: { totalBytes: number; subject: string; messageId: string; from?: string }): {
  raw: Buffer;
  attachmentBytes: number;
} {
  const attachmentBytes = Math.floor(((opts.totalBytes - 2000) * 3) / 4 / 1.027);
  const b64 = randomBytes(attachmentBytes).toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 76) lines.push(b64.slice(i, i + 76));
  const head = [
    `From: ${opts.from ?? 'Erika Mustermann <erika@customer.example>'}`,
    'To: Support <support@example.test>',
    `Subject: ${opts.subject}`,
    `Message-ID: ${opts.messageId}`,
    `Date: ${new Date().toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="large-boundary"',
    '',
    '--large-boundary',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Hallo, anbei der Scan des Vertrags mit allen Anlagen. Bitte prüfen Sie Seite 12.',
    '',
    '--large-boundary',
    'Content-Type: application/pdf; name="vertrag-scan.pdf"',
    'Content-Disposition: attachment; filename="vertrag-scan.pdf"',
    'Content-Transfer-Encoding: base64',
    '',
  ].join('\r\n');
  const raw = Buffer.concat([Buffer.from(`${head}\r\n`), Buffer.from(lines.join('\r\n')), Buffer.from('\r\n--large-boundary--\r\n')]);
  return { raw, attachmentBytes };
}
