/**
 * Size limits that agree end to end, on real Dovecot and MariaDB: a 20 MB mail below
 * MAX_MESSAGE_BYTES is stored (in chunks, whatever the server's max_allowed_packet) and parsed;
 * one above it leaves a visible row with its reason and ends the step without retries.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { checkDatabaseLimits, databaseLimitProblem, RAW_CHUNK_BYTES } from '../../src/platform/limits.mariadb';
import { classifyDbError, query } from '../../src/platform/pool.mariadb';
import { loadConfig } from '../../src/config';
import { PermanentError, TooLargeError, TransientError } from '../../src/platform/errors';
import { decideRetry } from '../../src/platform/retry-decision';
import { largeEmail } from '../support/large-mail';
import type { TestStack } from '../support/stack';
import { waitFor } from '../support/wait';
import { activityHarness, useActivityStack, type inboxDelivery } from './support';

const MB = 1_000_000;
let stack: TestStack;
let h: ReturnType<typeof activityHarness>;
let deliver: ReturnType<typeof inboxDelivery>;

useActivityStack((s) => ({ stack, h, deliver } = s));

test('a 20 MB mail below MAX_MESSAGE_BYTES is fetched, stored in chunks and parsed, though max_allowed_packet is smaller', async () => {
  const { maxAllowedPacket } = await checkDatabaseLimits(stack.db.pool, stack.config.imap.maxMessageBytes);
  const mail = largeEmail({ totalBytes: 20 * MB, subject: 'Vertrag mit Anlagen', messageId: '<large-20mb@customer.example>' });
  assert.ok(mail.raw.length > maxAllowedPacket, `the mail (${mail.raw.length}) is larger than one packet (${maxAllowedPacket})`);
  assert.ok(mail.raw.length < stack.config.imap.maxMessageBytes);
  const input = await deliver(mail.raw);

  const fetched = await h.run(input.emailId, h.activities.fetchEmail, input);
  assert.equal(fetched.size, input.size);
  const [stored] = (await stack.db.pool.query('SELECT size, chunks, sha256 FROM raw_messages WHERE email_id = ?', [
    input.emailId,
  ])) as Array<{
    size: number;
    chunks: number;
    sha256: string;
  }>;
  assert.equal(stored?.size, input.size);
  assert.equal(stored?.chunks, Math.ceil(input.size / RAW_CHUNK_BYTES));
  const raw = await h.deps.activities.messages.getRaw(input.emailId);
  assert.equal(raw?.length, input.size);
  assert.equal(createHash('sha256').update(raw!).digest('hex'), stored?.sha256, 'the chunks reassemble to the bytes stored');

  const parsed = await h.run(input.emailId, h.activities.parseEmail, { emailId: input.emailId });
  assert.equal(parsed.attachments, 1);
  assert.equal(parsed.triage, null);
  const email = await h.deps.activities.messages.getEmail(input.emailId);
  // The parse step writes no status: the workflow records the intake's statuses when it is done.
  assert.equal(email?.status, 'fetched');
  assert.equal(email?.attachments[0]?.size, mail.attachmentBytes);
  assert.match(email?.text ?? '', /Seite 12/);
});

test('a mail above MAX_MESSAGE_BYTES gets a visible row with reason too_large and an audit row; TOO_LARGE is never retried', async () => {
  const small = activityHarness(loadConfig({ ...stack.env, MAX_MESSAGE_BYTES: String(16 * 1024 * 1024) }));
  try {
    const mail = largeEmail({ totalBytes: 20 * MB, subject: 'Video der Schadensmeldung', messageId: '<too-large@customer.example>' });
    const input = await deliver(mail.raw);
    for (let i = 0; i < 2; i++) {
      await assert.rejects(small.run(input.emailId, small.activities.fetchEmail, input), (err: unknown) => {
        assert.ok(err instanceof TooLargeError && err instanceof PermanentError);
        assert.equal(err.code, 'TOO_LARGE');
        assert.match(err.message, new RegExp(`has ${input.size} bytes, above the limit of ${16 * 1024 * 1024}`));
        const decision = decideRetry(err, 1, { maximumAttempts: 0, delaysMs: [30_000] });
        assert.equal(decision.retry, false, 'no retry loop, even with unlimited IMAP attempts');
        return true;
      });
    }
    const [row] = (await stack.db.pool.query(
      'SELECT status, status_reason, raw_size, subject, from_address, source, uid FROM emails WHERE id = ?',
      [input.emailId],
    )) as Array<Record<string, unknown>>;
    assert.deepEqual(row, {
      status: 'fetched',
      status_reason: 'too_large',
      raw_size: input.size,
      subject: 'Video der Schadensmeldung',
      from_address: 'erika@customer.example',
      source: 'imap',
      uid: input.source.uid,
    });
    assert.equal(await small.deps.activities.messages.getRaw(input.emailId), null, 'nothing was downloaded or stored');
    const audit = (await stack.db.pool.query(
      `SELECT error_class, message FROM audit_log WHERE correlation_id = ? AND event_type = 'too_large'`,
      [input.emailId],
    )) as Array<{ error_class: string; message: string }>;
    assert.equal(audit.length, 1, 'a retried step records it once');
    assert.equal(audit[0]?.error_class, 'permanent');
    // What the workflow does with it: the row ends failed and keeps its reason.
    await small.run(input.emailId, small.activities.recordStatus, {
      emailId: input.emailId,
      status: 'failed',
      reason: 'too_large',
      seq: 1,
      event: { eventType: 'fetch_failed', errorClass: 'permanent', message: audit[0]!.message },
    });
    const email = await small.deps.activities.messages.getEmail(input.emailId);
    assert.equal(email?.status, 'failed');
    assert.equal(email?.statusReason, 'too_large');
  } finally {
    await small.close();
  }
});

test('MariaDB: a statement over max_allowed_packet is permanent with a clear message; only a lost connection is an outage', async () => {
  const big = Buffer.alloc(20 * MB, 0x41);
  await assert.rejects(query(stack.db.pool, 'storing a test blob', 'SELECT LENGTH(?) AS n', [big]), (err: unknown) => {
    assert.ok(err instanceof PermanentError);
    assert.equal(err.code, 'DB_PACKET_TOO_LARGE');
    assert.match(err.message, /storing a test blob.*max_allowed_packet of \d+/);
    return true;
  });
  // What the server itself answers when such a statement is sent anyway (it drops the connection).
  const serverError = await stack.db.pool.query('SELECT LENGTH(?) AS n', [big]).then(
    () => null,
    (err: unknown) => err,
  );
  const classified = classifyDbError(serverError, 'storing a test blob');
  // The server either answers ER_NET_PACKET_TOO_LARGE or drops the socket while the client still
  // writes (a race on the wire). Its answer is permanent; a bare reset cannot be told from an outage,
  // which is why query() refuses such a statement before it is sent (above).
  if (['ER_NET_PACKET_TOO_LARGE', 'ER_MAX_ALLOWED_PACKET'].includes(String((serverError as { code?: string }).code))) {
    assert.ok(classified instanceof PermanentError, `${(serverError as Error).message}`);
    assert.equal((classified as PermanentError).code, 'DB_PACKET_TOO_LARGE');
  } else {
    assert.match((serverError as Error).message, /ECONNRESET|EPIPE|socket|closed/i);
    assert.ok(classified instanceof TransientError, `${(serverError as Error).message}`);
  }
  // The pool recovers from the dropped connection.
  await waitFor(
    'the pool answers again',
    async () => (await query<Array<{ x: number }>>(stack.db.pool, 'probe', 'SELECT 1 AS x').catch(() => []))[0]?.x === 1,
    10_000,
  );

  const lost = classifyDbError(Object.assign(new Error('write ECONNRESET'), { code: 'ECONNRESET', fatal: true }), 'saving');
  assert.ok(lost instanceof TransientError);
  assert.equal(lost.code, 'DB_UNAVAILABLE');
  const tooLong = classifyDbError(Object.assign(new Error('Data too long'), { code: 'ER_DATA_TOO_LONG', errno: 1406 }), 'saving');
  assert.ok(tooLong instanceof PermanentError);
  const denied = classifyDbError(Object.assign(new Error('Access denied'), { code: 'ER_ACCESS_DENIED_ERROR', fatal: true }), 'connecting');
  assert.ok(denied instanceof PermanentError);
});

test('a server whose max_allowed_packet cannot work is refused at start with both values and the fix', async () => {
  assert.equal(databaseLimitProblem(16 * 1024 * 1024, 25 * 1024 * 1024), null);
  const problem = databaseLimitProblem(1024 * 1024, 25 * 1024 * 1024);
  assert.match(problem ?? '', /max_allowed_packet is 1048576 bytes/);
  assert.match(problem ?? '', /MAX_MESSAGE_BYTES=26214400/);
  assert.match(problem ?? '', /SET GLOBAL max_allowed_packet/);
  assert.doesNotMatch(problem ?? '', /\n/);
});
