/**
 * A synthetic mbox archive with the shape of a support team's history: German and English
 * customer mails of 2–20 KB, every fifth with a PDF-like attachment, some body lines beginning
 * with `From ` (quoted as mboxrd writers do), Takeout-style X-GM-THRID / X-Gmail-Labels headers.
 * Deterministic for a seed, written as a stream so a large archive never sits in memory.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

const SUBJECTS = ['Rechnung doppelt abgebucht', 'Lieferung verspätet', 'Passwort zurücksetzen', 'Refund for order', 'Wrong size delivered'];
const WORDS =
  'bitte danke Rechnung Lieferung Bestellung Kundennummer Gutschrift please order refund invoice delivery account support warten heute morgen'.split(
    ' ',
  );

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x1_0000_0000;
  };
}

function paragraph(rand: () => number, bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const words: string[] = [];
    for (let i = 0; i < 10; i++) words.push(WORDS[Math.floor(rand() * WORDS.length)]!);
    // Some lines of a real archive start with "From " in a body: an mboxrd writer quotes them.
    const line = rand() < 0.02 ? `>From ${words.join(' ')}` : words.join(' ');
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

/** One message as its mbox entry (From line, quoted body, trailing empty line). */
export function mboxEntry(i: number, rand: () => number, opts: { withAttachment: boolean }): string {
  const size = 2048 + Math.floor(rand() * 18 * 1024);
  const subject = SUBJECTS[i % SUBJECTS.length]!;
  const date = new Date(Date.UTC(2023, 0, 1) + i * 3_600_000);
  const headers = [
    `From customer${i % 97}@customer.example ${date.toUTCString().replace(/,/, '')}`,
    `X-GM-THRID: ${1_700_000_000_000_000_000n + BigInt(i)}`,
    `X-Gmail-Labels: Posteingang,Support`,
    `From: Kunde ${i % 97} <customer${i % 97}@customer.example>`,
    'To: Support <support@example.test>',
    `Subject: ${subject} #${i}`,
    `Message-ID: <archive-${i}@customer.example>`,
    `Date: ${date.toUTCString()}`,
    'MIME-Version: 1.0',
  ];
  if (!opts.withAttachment) {
    return [...headers, 'Content-Type: text/plain; charset=utf-8', '', paragraph(rand, size), '', ''].join('\n');
  }
  const text = paragraph(rand, Math.min(2048, size / 4));
  const blob = Buffer.alloc(Math.floor((size * 3) / 4));
  for (let k = 0; k < blob.length; k++) blob[k] = Math.floor(rand() * 256);
  const b64 = blob.toString('base64').replace(/.{76}/g, '$&\n');
  return [
    ...headers,
    'Content-Type: multipart/mixed; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/plain; charset=utf-8',
    '',
    text,
    '--b1',
    'Content-Type: application/pdf; name="beleg.pdf"',
    'Content-Transfer-Encoding: base64',
    'Content-Disposition: attachment; filename="beleg.pdf"',
    '',
    b64,
    '--b1--',
    '',
    '',
  ].join('\n');
}

export async function writeMboxCorpus(file: string, opts: { messages: number; seed?: number }): Promise<{ bytes: number }> {
  const rand = rng(opts.seed ?? 42);
  const out = createWriteStream(file);
  let bytes = 0;
  for (let i = 0; i < opts.messages; i++) {
    const entry = mboxEntry(i, rand, { withAttachment: i % 5 === 4 });
    bytes += Buffer.byteLength(entry);
    if (!out.write(entry)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return { bytes };
}
