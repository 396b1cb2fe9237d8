/** The mbox splitter on the variants real exports produce, fed in small and odd-sized chunks. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MboxSplitter, NotMboxError, type MboxItem } from '../../src/archive-import/mbox-splitter';

function split(data: string | Buffer, opts: { maxBytes?: number; chunk?: number } = {}): MboxItem[] {
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data, 'latin1');
  const s = new MboxSplitter(opts.maxBytes ?? 1 << 20);
  const out: MboxItem[] = [];
  const step = opts.chunk ?? 7;
  for (let i = 0; i < bytes.length; i += step) out.push(...s.push(bytes.subarray(i, i + step)));
  out.push(...s.end());
  return out;
}

const raws = (items: MboxItem[]) => items.map((i) => (i.kind === 'message' ? i.raw.toString('latin1') : `<too large ${i.size}>`));

test('mboxo/mboxrd: messages split at From lines after an empty line, one > removed from quoted From lines', () => {
  const mbox =
    'From a@example.test Mon Jan  1 00:00:00 2024\nSubject: one\n\nHello\n>From the start\n>>From quoted\nFrom inside a paragraph\n\n' +
    'From b@example.test Mon Jan  1 00:00:01 2024\nSubject: two\n\nBye\n\n';
  for (const chunk of [1, 3, 7, 64, 4096]) {
    assert.deepEqual(
      raws(split(mbox, { chunk })),
      ['Subject: one\n\nHello\nFrom the start\n>From quoted\nFrom inside a paragraph\n', 'Subject: two\n\nBye\n'],
      `chunk ${chunk}`,
    );
  }
});

test('CRLF files keep their line ends; an empty line inside the body stays', () => {
  const mbox =
    'From a Mon Jan  1 00:00:00 2024\r\nSubject: one\r\n\r\nA\r\n\r\n\r\nB\r\n\r\nFrom b Mon Jan  1 00:00:00 2024\r\nSubject: two\r\n\r\nC\r\n';
  assert.deepEqual(raws(split(mbox)), ['Subject: one\r\n\r\nA\r\n\r\n\r\nB\r\n', 'Subject: two\r\n\r\nC\r\n']);
});

test('Content-Length is trusted when it lands on a From line or the end: unquoted From lines inside stay', () => {
  const body1 = 'Text\n\nFrom here on it is unquoted\n';
  const body2 = 'Last\n';
  const mbox =
    `From a Mon Jan  1 00:00:00 2024\nSubject: cl2\nContent-Length: ${body1.length}\n\n${body1}\n` +
    `From b Mon Jan  1 00:00:00 2024\nSubject: end\nContent-Length: ${body2.length}\n\n${body2}`;
  assert.deepEqual(raws(split(mbox)), [
    `Subject: cl2\nContent-Length: ${body1.length}\n\n${body1}`,
    `Subject: end\nContent-Length: ${body2.length}\n\n${body2}`,
  ]);
});

test('a wrong Content-Length is ignored: the From rule splits', () => {
  for (const wrong of [3, 11, 500]) {
    const mbox =
      `From a Mon Jan  1 00:00:00 2024\nSubject: x\nContent-Length: ${wrong}\n\nAbc\ndef\n\n` +
      'From b Mon Jan  1 00:00:00 2024\nSubject: y\n\nZ\n';
    assert.deepEqual(raws(split(mbox)), [`Subject: x\nContent-Length: ${wrong}\n\nAbc\ndef\n`, 'Subject: y\n\nZ\n'], `length ${wrong}`);
  }
});

test('a Takeout message keeps its X-GM-THRID and X-Gmail-Labels headers', () => {
  const mbox =
    'From 1781234567890123456@xxx Tue Mar 05 10:00:00 +0000 2024\r\nX-GM-THRID: 1781234567890123456\r\nX-Gmail-Labels: Posteingang,Ge=?UTF-8?Q?=C3=B6ffnet?=\r\nSubject: t\r\n\r\nBody\r\n\r\n';
  const [m] = split(mbox);
  assert.ok(m?.kind === 'message');
  assert.match(m.raw.toString('latin1'), /^X-GM-THRID: 1781234567890123456\r\nX-Gmail-Labels: /);
});

test('a last message cut off mid-line is reported truncated; an empty input has no messages', () => {
  const items = split('From a Mon Jan  1 00:00:00 2024\nSubject: x\n\nHalf a sent');
  assert.equal(items.length, 1);
  assert.ok(items[0]?.kind === 'message' && items[0].truncated);
  assert.equal(items[0].raw.toString(), 'Subject: x\n\nHalf a sent');
  assert.deepEqual(split(''), []);
});

test('a message above the limit is counted, not held: only its head is kept', () => {
  const big = 'x'.repeat(99) + '\n';
  const mbox = `From a Mon Jan  1 00:00:00 2024\nSubject: big\n\n${big.repeat(5000)}\nFrom b Mon Jan  1 00:00:00 2024\nSubject: small\n\nok\n`;
  const items = split(mbox, { maxBytes: 10_000, chunk: 4096 });
  assert.equal(items.length, 2);
  assert.ok(items[0]?.kind === 'too-large');
  assert.equal(items[0].size, 'Subject: big\n\n'.length + 500_000);
  assert.ok(items[0].head.length <= 64 * 1024);
  assert.match(items[0].head.toString(), /^Subject: big\n/);
  assert.deepEqual(raws(items.slice(1)), ['Subject: small\n\nok\n']);
});

test('a line with no break for megabytes does not pile up and is not a From line', () => {
  const s = new MboxSplitter(100_000);
  s.push(Buffer.from('From a Mon Jan  1 00:00:00 2024\nSubject: x\n\n'));
  for (let i = 0; i < 50; i++) assert.deepEqual(s.push(Buffer.alloc(65_536, 0x41)), []);
  const items = s.end();
  assert.ok(items[0]?.kind === 'too-large');
  assert.equal(items[0].size, 'Subject: x\n\n'.length + 50 * 65_536);
});

test('data that does not start with a From line is refused', () => {
  assert.throws(() => split(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])), NotMboxError);
  assert.throws(() => split('Subject: no envelope\n\nx\n'), NotMboxError);
  assert.throws(() => split('From: someone@example.test\n\nx\n'), NotMboxError);
});

test('a message of headers only (or no header at all) still ends at the next From line', () => {
  const mbox =
    'From a Mon Jan  1 00:00:00 2024\n\u0000garbage\n\nFrom b Mon Jan  1 00:00:00 2024\nSubject: only\n\nFrom c Mon Jan  1 00:00:00 2024\nSubject: z\n\nok\n';
  assert.deepEqual(raws(split(mbox)), ['\u0000garbage\n', 'Subject: only\n', 'Subject: z\n\nok\n']);
});
