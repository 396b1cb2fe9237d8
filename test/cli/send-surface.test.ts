/**
 * What an operator sees of sends in doubt and bounced: status, metrics, dlq show, and a dlq
 * requeue that refuses to stand in for an explicit decision. Real MariaDB.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { dlqRequeue, dlqShow, formatDeadLetter } from '../../src/operations/dead-letters.cli';
import { formatMetrics, metrics } from '../../src/operations/metrics.cli';
import { formatStatus, status } from '../../src/operations/status.cli';
import { loadConfig, type Config } from '../../src/config';
import { createTestDatabase } from '../support/database';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let config: Config;

before(async () => {
  db = await createTestDatabase('cli_send');
  // Temporal is never reached: the refusal comes before any connection.
  config = loadConfig({ DATABASE_URL: db.url, TEMPORAL_ADDRESS: '127.0.0.1:1' }, { imap: false });
  const sends: Array<[string, string, string]> = [
    ['email-a', 'email-a:draft:1', 'in_doubt'],
    ['email-b', 'email-b:draft:1', 'bounced'],
    ['email-c', 'email-c:draft:1', 'sent'],
    ['email-d', 'email-d:draft:1', 'failed'],
  ];
  for (const [emailId, draftId, state] of sends) {
    await db.pool.query(
      `INSERT INTO send_attempts (draft_id, email_id, message_id, status, phase, attempts) VALUES (?, ?, ?, ?, 'data_end', 1)`,
      [draftId, emailId, `<reply-${emailId}@example.test>`, state],
    );
  }
  for (const emailId of ['email-a', 'email-d']) {
    await db.pool.query(
      `INSERT INTO queue_jobs (workflow_id, email_id, step, activity_id, status, attempt, max_attempts, error_class, last_error, finished_at)
       VALUES (?, ?, 'send', '9', 'dead', 3, 3, 'permanent', 'SEND_IN_DOUBT: may have been delivered', CURRENT_TIMESTAMP(3))`,
      [emailId, emailId],
    );
  }
});
after(async () => {
  await db?.drop();
});

test('status counts sends per status and names the decision a send in doubt needs', async () => {
  const report = await status(config);
  assert.equal(report.sendsInDoubt, 1);
  assert.equal(report.sendsBounced, 1);
  assert.deepEqual(report.sends, { pending: 0, sending: 0, sent: 1, failed: 1, in_doubt: 1, bounced: 1 });
  const text = formatStatus(report);
  assert.match(text, /sends in doubt: 1 {3}bounced: 1/);
  assert.match(text, /email-rag resend <id> --force --by NAME/);
  assert.match(text, /email-rag mark-sent <id> --by NAME/);
});

test('metrics include sends in doubt and bounced, and alert on a send in doubt', async () => {
  const m = await metrics(config, 60, 30);
  assert.deepEqual(m.sends, { inDoubt: 1, bounced: 1 });
  assert.ok(m.alerts.some((a) => /1 send\(s\) in doubt/.test(a)));
  assert.match(formatMetrics(m), /sends in doubt: 1, bounced: 1/);
});

test('dlq show says the send is in doubt; dlq requeue refuses and tells the operator to decide', async () => {
  const [row] = (await db.pool.query(`SELECT id FROM queue_jobs WHERE email_id = 'email-a'`)) as Array<{ id: number }>;
  const shown = await dlqShow(config, row!.id);
  assert.deepEqual(shown.send, { draftId: 'email-a:draft:1', status: 'in_doubt', messageId: '<reply-email-a@example.test>' });
  assert.match(
    formatDeadLetter(shown),
    /IN DOUBT: .*<reply-email-a@example\.test>.*email-rag resend email-a --force --by NAME.*email-rag mark-sent email-a --by NAME/,
  );
  await assert.rejects(dlqRequeue(config, row!.id, 'ops'), (err: Error) => {
    assert.match(
      err.message,
      /cannot requeue .*IN DOUBT.*email-rag resend email-a --force --by NAME.*email-rag mark-sent email-a --by NAME/,
    );
    return true;
  });
  const [after] = (await db.pool.query(`SELECT status, requeue_count FROM queue_jobs WHERE id = ?`, [row!.id])) as Array<{
    status: string;
    requeue_count: number;
  }>;
  assert.deepEqual({ ...after }, { status: 'dead', requeue_count: 0 });
});

test('a dead send that merely failed is not reported as in doubt', async () => {
  const [row] = (await db.pool.query(`SELECT id FROM queue_jobs WHERE email_id = 'email-d'`)) as Array<{ id: number }>;
  const shown = await dlqShow(config, row!.id);
  assert.equal(shown.send?.status, 'failed');
  assert.doesNotMatch(formatDeadLetter(shown), /IN DOUBT/);
  // It goes on to Temporal (unreachable here), i.e. past the in-doubt refusal.
  await assert.rejects(dlqRequeue(config, row!.id, 'ops'), (err: Error) => !/IN DOUBT/.test(err.message));
});
