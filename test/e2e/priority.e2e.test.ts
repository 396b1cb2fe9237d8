/**
 * Priority ordering on the real dev server (new matcher, one partition): with one LLM slot
 * busy, waiting drafts are served critical → high → normal → low, FIFO within a priority.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { createEmailWorker, type RunningWorker } from '../../workers/email-worker';
import { sampleEmail, startStack, type TestStack } from '../support/stack';
import { waitFor } from '../support/wait';
import { workflowBundle } from '../support/workflow-bundle';

const run = promisify(execFile);
let stack: TestStack;
let worker: RunningWorker;
let done: Promise<void>;
/** Lets the held LLM request answer (also when a test failed before it did). */
let release = (): void => undefined;

before(async () => {
  // Independent emails of one sample sender: without CASES=off they would form one case, and the
  // case's redrafts would take LLM slots between them (cases have their own tests).
  // The blocker's request is held until every other draft waits; the timeout leaves room for a slow machine.
  stack = await startStack({ env: { WORKER_CONCURRENCY_LLM: '1', LLM_TIMEOUT_MS: '120000', CASES: 'off' } });
  worker = await createEmailWorker(stack.config, { workflowBundle: await workflowBundle() });
  done = worker.run();
});
after(async () => {
  release();
  await worker?.shutdown();
  await done?.catch(() => undefined);
  await stack?.stop();
});

const ingest = (file: string) => run(process.execPath, ['bin/email-rag.js', 'ingest', file], { env: { ...process.env, ...stack.env } });

function subjectsInLlmOrder(): string[] {
  return stack.llm.requests
    .map((r) => /subject="([^"]*)"/.exec(r.body.messages?.find((m) => m.role === 'user')?.content ?? '')?.[1])
    .filter((s): s is string => Boolean(s));
}

/** When the email's draft task was put on the LLM queue (0 while it is not yet). */
async function draftScheduledAt(subject: string): Promise<number> {
  const id = ids.get(subject);
  if (!id) return 0;
  const connection = await Connection.connect({ address: stack.config.temporal.address });
  try {
    const history = await new Client({ connection }).workflow.getHandle(id).fetchHistory();
    const event = history.events?.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'draftReply');
    return event ? Number(event.eventTime?.seconds ?? 0) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6) : 0;
  } finally {
    await connection.close();
  }
}
const ids = new Map<string, string>();

test('waiting drafts are served by priority, FIFO within one priority', async () => {
  const dir = `${stack.dir}/prio`;
  mkdirSync(dir);
  // The first draft holds the only LLM slot while the others queue up behind it; it is released
  // once all of them wait for drafting, however long importing them took.
  const released = new Promise<void>((r) => (release = r));
  stack.llm.script({ kind: 'hold', until: released, for: 'email_draft' });
  writeFileSync(`${stack.dir}/blocker.eml`, sampleEmail({ subject: 'blocker', messageId: '<blocker@customer.example>' }));
  await ingest(`${stack.dir}/blocker.eml`);
  await waitFor('blocker at the LLM', async () => subjectsInLlmOrder().includes('blocker'));
  const mails: Array<[string, string[]]> = [
    ['low-1', ['X-Priority: 5 (Lowest)']],
    ['normal-1', []],
    ['low-2', ['Importance: low']],
    ['high-1', ['X-Priority: 1 (Highest)']],
    ['normal-2', []],
    ['critical-1', ['Priority: urgent']],
  ];
  const importMails = async (batch: Array<[string, string[]]>) => {
    const sub = `${dir}/${ids.size}`;
    mkdirSync(sub);
    for (const [i, [subject, extra]] of batch.entries()) {
      writeFileSync(`${sub}/${i}-${subject}.eml`, sampleEmail({ subject, messageId: `<${subject}@customer.example>`, extra }));
    }
    for (const line of (await ingest(sub)).stdout.trim().split('\n')) {
      const [id, , file] = line.split('\t');
      ids.set(/\d-(.+)\.eml$/.exec(file ?? '')![1]!, id!);
    }
  };
  // The first of each pair reaches the LLM queue clearly before the second: FIFO is observable.
  for (const single of mails.slice(0, 2)) {
    await importMails([single]);
    await waitFor(`${single[0]} queued for drafting`, async () => (await draftScheduledAt(single[0])) > 0);
  }
  await importMails(mails.slice(2));
  await waitFor('all queued for drafting', async () => {
    for (const [subject] of mails) if ((await draftScheduledAt(subject)) === 0) return false;
    return true;
  });
  release();
  await waitFor('all drafted', async () => subjectsInLlmOrder().length >= mails.length + 1, 120_000, 250);
  const served = subjectsInLlmOrder().slice(1);
  assert.deepEqual(
    served.map((s) => s.split('-')[0]),
    ['critical', 'high', 'normal', 'normal', 'low', 'low'],
    `served in priority order: ${served.join(', ')}`,
  );
  // FIFO within a priority: low-1 and normal-1 were queued seconds before low-2 and normal-2.
  assert.deepEqual(served, ['critical-1', 'high-1', 'normal-1', 'normal-2', 'low-1', 'low-2']);
});
