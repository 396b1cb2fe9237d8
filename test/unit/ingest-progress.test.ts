/** Import progress without a terminal: a heartbeat line every N messages, never a redrawn bar. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createIngestProgress } from '../../src/archive-import/ingest-progress';

test('without a terminal: one line per 1000 messages with bytes of the total, the rest silent', () => {
  const written: string[] = [];
  const p = createIngestProgress({ tty: false, unit: 'bytes', total: 10 * 1_048_576, every: 1000, write: (l) => written.push(l) });
  for (let i = 1; i <= 2500; i++) p.advance({ bytes: 4096, messages: i });
  p.log('x\tfailed: boom\ty');
  p.stop();
  assert.deepEqual(written, [
    'email-rag ingest: 1000 message(s) read, 3.9 MB of 10.0 MB',
    'email-rag ingest: 2000 message(s) read, 7.8 MB of 10.0 MB',
    'x\tfailed: boom\ty',
  ]);
});

test('a Maildir counts files', () => {
  const written: string[] = [];
  const p = createIngestProgress({ tty: false, unit: 'files', total: 3, every: 2, write: (l) => written.push(l) });
  for (let i = 1; i <= 3; i++) p.advance({ files: 1, messages: i });
  assert.deepEqual(written, ['email-rag ingest: 2 message(s) read, 2 of 3 files']);
});
