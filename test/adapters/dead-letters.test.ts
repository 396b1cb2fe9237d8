/**
 * The dead-letter store's requeue mark: taken once, before the step runs again, and put back as it
 * was when the re-run cannot be started. Real MariaDB.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createMariaDbDeadLetters } from '../../src/operations/dead-letters.mariadb';
import { createTestDatabase } from '../support/database';

let db: Awaited<ReturnType<typeof createTestDatabase>>;

before(async () => {
  db = await createTestDatabase('dead_letters');
});
after(async () => {
  await db?.drop();
});

async function deadRow(workflowId: string, requeuedBy: string | null = null): Promise<number> {
  const r = (await db.pool.query(
    `INSERT INTO queue_jobs (workflow_id, email_id, step, activity_id, status, attempt, max_attempts, error_class, last_error, finished_at,
       requeue_count, requeued_by, requeued_at)
     VALUES (?, ?, 'parse', '3', 'dead', 3, 3, 'permanent', 'PARSE_FAILED: no body', CURRENT_TIMESTAMP(3), ?, ?, ?)`,
    [workflowId, workflowId, requeuedBy ? 1 : 0, requeuedBy, requeuedBy ? new Date('2026-12-01T10:00:00Z') : null],
  )) as { insertId: number | bigint };
  return Number(r.insertId);
}

const row = async (id: number) =>
  (
    (await db.pool.query(`SELECT status, attempt, requeue_count, requeued_by, requeued_at FROM queue_jobs WHERE id = ?`, [id])) as Array<{
      status: string;
      attempt: number;
      requeue_count: number;
      requeued_by: string | null;
      requeued_at: Date | null;
    }>
  )[0]!;

test('a requeue marks the dead row pending once: a second operator at the same moment is told it is taken', async () => {
  const store = createMariaDbDeadLetters(db.pool);
  const id = await deadRow('email-once');
  const mark = await store.markRequeued(id, 'carol');
  assert.ok(mark);
  assert.equal(await store.markRequeued(id, 'dave'), null);
  const r = await row(id);
  assert.deepEqual(
    { status: r.status, attempt: r.attempt, requeue_count: r.requeue_count, by: r.requeued_by },
    {
      status: 'pending',
      attempt: 0,
      requeue_count: 1,
      by: 'carol',
    },
  );
});

test('a re-run that cannot be started puts the row back as it was, an earlier requeue included', async () => {
  const store = createMariaDbDeadLetters(db.pool);
  const id = await deadRow('email-back', 'bert');
  const before = await row(id);
  const mark = await store.markRequeued(id, 'carol');
  assert.ok(mark);
  await store.undoRequeue(mark, 'carol');
  assert.deepEqual(await row(id), before);
});
