import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../activities';
import type { Config } from '../../src/config';
import type { Embedder } from '../../src/retrieval/embedder.port';
import { imapEmailId } from '../../src/email/email-input';
import { buildDependencies, type Dependencies } from '../../workers/wiring';
import { after, before } from 'node:test';
import { MAILBOX_USER, NO_TEMPORAL_ADDRESS, startStack, type TestStack } from '../support/stack';

/**
 * The production adapters (real Dovecot, MariaDB, SMTP listener, LLM double over HTTP) wired by
 * the worker's own dependency builder, and a way to run one activity with a Temporal context.
 */
export function activityHarness(config: Config, options: { embedder?: Embedder } = {}) {
  // Most activity tests run without Temporal (startStack's placeholder address): a call that
  // reaches for it (a case signal, a redraft request) fails as against an unreachable server, at
  // once instead of after the client's retries (about 20 s a call).
  const noTemporal = config.temporal.address === NO_TEMPORAL_ADDRESS;
  const connection = Connection.lazy({ address: config.temporal.address, ...(noTemporal ? { interceptors: [] } : {}) });
  const deps: Dependencies = buildDependencies(config, new Client({ connection, namespace: config.temporal.namespace }), options);
  const activities = createActivities(deps.activities);
  const runAttempt = <A extends unknown[], R>(workflowId: string, attempt: number, fn: (...a: A) => Promise<R>, ...args: A): Promise<R> =>
    new MockActivityEnvironment({ workflowExecution: { workflowId, runId: randomUUID() }, activityId: '1', attempt }).run(fn, ...args);
  return {
    deps,
    activities,
    /** Runs `fn` as the first attempt of an activity in workflow `workflowId`. */
    run<A extends unknown[], R>(workflowId: string, fn: (...a: A) => Promise<R>, ...args: A): Promise<R> {
      return runAttempt(workflowId, 1, fn, ...args);
    },
    /** Runs `fn` as attempt `attempt` of an activity in workflow `workflowId`. */
    runAttempt,
    async close() {
      await deps.close();
      await connection.close().catch(() => undefined);
    },
  };
}

/**
 * Drops messages into the test mailbox's INBOX with `doveadm` and returns, for each, the workflow
 * input the poll would have built (the newest UID, its size and the email id).
 */
export function inboxDelivery(
  stack: { dovecot: { deliver(user: string, raw: string | Buffer): Promise<void> } },
  h: ReturnType<typeof activityHarness>,
) {
  let nextUid = 1;
  return async (raw: string | Buffer) => {
    await stack.dovecot.deliver(MAILBOX_USER, raw);
    const listing = await h.deps.activities.mailboxes.get('default').imap.listSince('INBOX', nextUid - 1, 10);
    const msg = listing.messages[listing.messages.length - 1]!;
    nextUid = msg.uid + 1;
    const emailId = imapEmailId(MAILBOX_USER, 'INBOX', listing.uidValidity, msg.uid);
    return { emailId, size: msg.size, source: { kind: 'imap' as const, mailbox: 'INBOX', uidValidity: listing.uidValidity, uid: msg.uid } };
  };
}

/**
 * Takes a delivered email through fetch, parse, index, draft and a person's approval with harness
 * `h`, each step recording the status it reaches under the workflow's number, as in the workflow.
 */
export async function approveDelivered(
  h: ReturnType<typeof activityHarness>,
  delivered: { emailId: string; source: { kind: 'imap'; mailbox: string; uidValidity: number; uid: number } },
) {
  const { emailId, source } = delivered;
  await h.run(emailId, h.activities.fetchEmail, { emailId, source });
  await h.run(emailId, h.activities.parseEmail, { emailId });
  await h.run(emailId, h.activities.indexEmail, { emailId });
  const draft = await h.run(emailId, h.activities.draftReply, { emailId, version: 1, record: { seq: 1 } });
  await h.run(emailId, h.activities.recordDecision, {
    emailId,
    draftId: draft.draftId,
    decision: { kind: 'approve', by: 'tester' },
    record: { seq: 2 },
  });
  return { emailId, draftId: draft.draftId, draft };
}

/**
 * Starts the real servers (no Temporal) and the activity harness before a test file and stops them
 * after it; `ready` receives the stack, the harness and an inbox delivery once they are up.
 */
export function useActivityStack(
  ready: (s: { stack: TestStack; h: ReturnType<typeof activityHarness>; deliver: ReturnType<typeof inboxDelivery> }) => void,
): void {
  let stack: TestStack | undefined;
  let h: ReturnType<typeof activityHarness> | undefined;
  before(async () => {
    stack = await startStack({ temporal: false });
    h = activityHarness(stack.config);
    ready({ stack, h, deliver: inboxDelivery(stack, h) });
  });
  after(async () => {
    await h?.close();
    await stack?.stop();
  });
}

/**
 * What the email workflow does once the index step failed as degraded for the last time: records
 * `partially_indexed`, then drafts with the context that is left. Returns the draft's result and
 * the `retrieval_degraded` audit message the draft step wrote.
 */
export async function draftAfterDegradedIndex(
  h: ReturnType<typeof activityHarness>,
  pool: TestStack['db']['pool'],
  emailId: string,
  reason: string,
): Promise<{ needsHuman: boolean; degraded: string }> {
  await h.run(emailId, h.activities.recordStatus, {
    emailId,
    status: 'partially_indexed',
    reason,
    seq: 1,
    event: { eventType: 'index_degraded', errorClass: 'dependency', message: reason },
  });
  const draft = await h.run(emailId, h.activities.draftReply, { emailId, version: 1 });
  const rows = (await pool.query(`SELECT message FROM audit_log WHERE email_id = ? AND event_type = 'retrieval_degraded'`, [
    emailId,
  ])) as Array<{ message: string }>;
  return { needsHuman: draft.needsHuman, degraded: rows[0]?.message ?? '' };
}
