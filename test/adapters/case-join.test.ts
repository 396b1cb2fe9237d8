/**
 * Which case a mail joins, on real MariaDB (the case store's `join`): its thread's open case
 * first, else its correspondent's open case in the mailbox within the window, else a case of its
 * own; a mail that has a case keeps it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createMariaDbCaseStore } from '../../src/cases/case-store.mariadb';
import type { CaseJoinInput } from '../../src/cases/cases.port';
import { createTestDatabase } from '../support/database';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
before(async () => {
  db = await createTestDatabase('casejoin');
});
after(async () => {
  await db?.drop();
});

async function mail(id: string, threadId: string, correspondent: string): Promise<CaseJoinInput> {
  await db.pool.query(
    "INSERT INTO emails (id, source, status, account, mailbox_id, thread_id, from_address) VALUES (?, 'file', 'indexed', 'acct', 'support', ?, ?)",
    [id, threadId, correspondent],
  );
  return input(id, threadId, correspondent);
}

test('a mail joins its thread’s case, else its correspondent’s, else opens one; a joined mail keeps its case', async () => {
  const cases = createMariaDbCaseStore(db.pool);
  const first = await cases.join(await mail('e-1', 't-1', 'anna@kunde.example'));
  assert.equal(first.via, 'opened');
  assert.equal(first.opened, true);

  const colleague = await cases.join(await mail('e-2', 't-1', 'ben@kunde.example'));
  assert.deepEqual([colleague.via, colleague.caseId, colleague.opened], ['thread', first.caseId, false], 'the thread’s case');

  const again = await cases.join(await mail('e-3', 't-2', 'anna@kunde.example'));
  assert.deepEqual([again.via, again.caseId], ['correspondent', first.caseId], 'her open case, another thread');

  const other = await cases.join(await mail('e-4', 't-3', 'carl@else.example'));
  assert.equal(other.via, 'opened');
  assert.notEqual(other.caseId, first.caseId);

  // Anna writes into Carl's thread: the thread's case wins over her own open one.
  const into = await cases.join(await mail('e-5', 't-3', 'anna@kunde.example'));
  assert.deepEqual([into.via, into.caseId], ['thread', other.caseId]);

  const retried = await cases.join(input('e-2', 't-1', 'ben@kunde.example'));
  assert.deepEqual([retried.via, retried.caseId], ['already', first.caseId]);

  await db.pool.query("UPDATE cases SET status = 'closed' WHERE id = ?", [first.caseId]);
  const afterClose = await cases.join(await mail('e-6', 't-1', 'anna@kunde.example'));
  assert.equal(afterClose.via, 'opened', 'a closed case takes no new mail, by thread or by correspondent');
});

function input(id: string, threadId: string, correspondent: string): CaseJoinInput {
  return {
    emailId: id,
    threadId,
    account: 'acct',
    mailboxId: 'support',
    correspondent,
    correspondentName: '',
    subject: `Mail ${id}`,
    priority: 'normal',
    windowDays: 14,
  };
}
