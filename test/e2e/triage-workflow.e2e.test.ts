/**
 * The released email workflow, unchanged, with this triage: an abuse complaint and mail beyond the
 * reply limit wait for a person without a draft, a duplicate ends ignored. Real Temporal dev
 * server, worker, MariaDB and the `email-rag ingest` binary.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Client } from '@temporalio/client';
import { rejectSignal, stateQuery } from '../../src/email/email.workflow';
import { ingestFiles } from '../support/cli-run';
import { currentDraftId } from '../support/decisions';
import { sampleEmail, type TestStack } from '../support/stack';
import { waitFor } from '../support/wait';
import { useWorkerStack } from '../support/worker-stack';

let stack: TestStack;
let client: Client;

useWorkerStack((s) => ({ stack, client } = s), { stack: { env: { REPLY_LIMIT_PER_HOUR: '2', LLM_TIMEOUT_MS: '30000' } } });

/** Imports mails with the CLI; returns the email ids in file order. */
const ingest = (files: Array<[string, string | Buffer]>): Promise<string[]> => ingestFiles(stack.env, stack.dir, files);

async function row(id: string) {
  const rows = (await stack.db.pool.query('SELECT status, status_reason, triage_class FROM emails WHERE id = ?', [id])) as Array<{
    status: string;
    status_reason: string | null;
    triage_class: string | null;
  }>;
  return rows[0];
}

const settled = (id: string) =>
  waitFor(
    `${id} settled`,
    async () => {
      const r = await row(id);
      return r && ['ignored', 'awaiting_approval', 'manual_review', 'failed'].includes(r.status) ? r : undefined;
    },
    120_000,
  );

test('an abuse complaint waits in manual review without a draft; a person closes it', async () => {
  const arf = readFileSync(path.join(__dirname, '../fixtures/triage/arf-abuse-report.eml'));
  const [id] = await ingest([['arf.eml', arf]]);
  const r = await settled(id!);
  assert.equal(r.status, 'manual_review');
  assert.equal(r.triage_class, 'feedback_report');
  assert.match(r.status_reason ?? '', /^feedback_report: an abuse complaint about our mail/);
  // The status row is written by the draft step before the workflow takes its result and starts
  // waiting: the query sees the wait one workflow task later.
  const state = await waitFor('the workflow waits for a person', async () => {
    const s = await client.workflow.getHandle(id!).query(stateQuery);
    return s.waitingFor ? s : undefined;
  });
  assert.equal(state.waitingFor?.kind, 'manual_review');
  const drafts = (await stack.db.pool.query('SELECT body, flags FROM drafts WHERE email_id = ?', [id])) as Array<{
    body: string;
    flags: string;
  }>;
  assert.deepEqual(
    drafts.map((d) => [d.body, d.flags]),
    [['', '["feedback_report"]']],
  );
  await client.workflow
    .getHandle(id!)
    .signal(rejectSignal, { draftId: await currentDraftId(client, id!), by: 'tester', reason: 'FBL: handled' });
  await waitFor('rejected', async () => (await row(id!))?.status === 'rejected');
});

test('a responder loop: two drafts in the hour, the third mail waits for a person with the reason', async () => {
  const robot = 'Ticket System <tickets@helpdesk.example>';
  const ids = await ingest(
    [1, 2, 3].map((i): [string, string] => [
      `loop-${i}.eml`,
      sampleEmail({ from: robot, subject: `[#${2000 + i}] Ihre Anfrage ist eingegangen`, messageId: `<e2e-loop-${i}@helpdesk.example>` }),
    ]),
  );
  // One after the other, as a loop arrives: the limit counts the drafts already written.
  const statuses: string[] = [];
  for (const id of ids) statuses.push((await settled(id)).status);
  assert.equal(statuses.filter((s) => s === 'awaiting_approval').length, 2, statuses.join(' '));
  const held = [];
  for (const id of ids) if ((await row(id))?.status === 'manual_review') held.push(id);
  assert.equal(held.length, 1);
  assert.match((await row(held[0]!))?.status_reason ?? '', /^reply limit: 2 drafts to tickets@helpdesk\.example in the last hour/);
  for (const id of ids) {
    await client.workflow
      .getHandle(id)
      .signal(rejectSignal, { draftId: await currentDraftId(client, id), by: 'tester', reason: 'test done' });
  }
});
