import { STEPS, WORKFLOW_TYPES } from '../platform/contract';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { createMariaDbAuditLog } from '../platform/audit-log.mariadb';
import { createMariaDbDeadLetters, type DeadLetter, type DeadLetterDetail } from './dead-letters.mariadb';
import { createMariaDbSendLedger, redraft, resend } from '../email/index.adapters';
import { inDoubtAdvice, SEND_STATUS, type EmailWorkflowInput } from '../email';
import type { Config } from '../platform/config';
import { QUEUE_STATUS } from '../platform/job-queue';
import { CliError, connectDatabase, connectTemporal } from '../platform/cli-context';
type TemporalClient = Awaited<ReturnType<typeof connectTemporal>>['client'];
import { OPERATIONS_AUDIT_EVENTS } from './operations.contract';
import { groupUsage, JSON_OPTION, text, type CliCommand } from '../platform/cli-command';

export async function dlqList(config: Config): Promise<DeadLetter[]> {
  const pool = await connectDatabase(config);
  try {
    return await createMariaDbDeadLetters(pool).list();
  } finally {
    await pool.end();
  }
}

export function formatDeadLetters(list: DeadLetter[]): string {
  if (list.length === 0) return 'no dead letters';
  return list
    .map((d) => `${d.id}\t${d.step}\t${d.correlationId}\t${d.errorClass ?? '?'}\t${(d.lastError ?? '').split('\n')[0]?.slice(0, 120)}`)
    .join('\n');
}

/** A dead letter, and for a send step the state of its send_attempts row. */
export type DeadLetterView = DeadLetterDetail & { send: { draftId: string; status: string; messageId: string } | null };

export async function dlqShow(config: Config, id: number): Promise<DeadLetterView> {
  const pool = await connectDatabase(config);
  try {
    const d = await createMariaDbDeadLetters(pool).show(id);
    if (!d) throw new CliError(`no queue row ${id} (list dead letters with: email-rag dlq list)`);
    const row = d.step === STEPS.send && d.emailId ? await createMariaDbSendLedger(pool).latestOfEmail(d.emailId) : null;
    return { ...d, send: row ? { draftId: row.draftId, status: row.status, messageId: row.messageId } : null };
  } finally {
    await pool.end();
  }
}

/** What an operator must do about a send in doubt: decide, after checking the SMTP log. */
function inDoubtText(emailId: string | null, messageId: string): string {
  return `the send of ${messageId} is IN DOUBT: it may have reached the customer and is never resent automatically; ${inDoubtAdvice(emailId ?? '<email id>')}`;
}

export function formatDeadLetter(d: DeadLetterView): string {
  return [
    `dead letter ${d.id} (${d.status}): step ${d.step} of ${d.correlationId}`,
    `correlation id: ${d.correlationId}`,
    `cause:          [${d.errorClass ?? '?'}] ${d.lastError ?? ''}`,
    `attempts:       ${d.attempts}, last runtime ${d.lastRuntimeMs ?? '?'} ms, died ${d.diedAt?.toISOString() ?? '?'}`,
    `payload:        ${d.payload.rawMessage ?? 'no stored message'}${d.payload.rawBytes !== null ? ` (${d.payload.rawBytes} bytes)` : ''}`,
    `email:          ${d.payload.subject ?? '?'} from ${d.payload.from ?? '?'}, status ${d.payload.emailStatus ?? '?'}`,
    ...(d.send ? [`send:           ${d.send.status} (${d.send.messageId}, draft ${d.send.draftId})`] : []),
    ...(d.send?.status === SEND_STATUS.inDoubt ? [`IN DOUBT:       ${inDoubtText(d.emailId, d.send.messageId)}`] : []),
    `requeued:       ${d.requeueCount} time(s)${d.requeuedBy ? `, last by ${d.requeuedBy}` : ''}`,
    'history:',
    ...d.history.map((h) => `  ${h.at.toISOString()}  ${h.event}${h.actor ? ` by ${h.actor}` : ''}  ${h.message}`),
  ].join('\n');
}

/**
 * Re-runs a dead step after a fix: inside a waiting workflow by signal (send, draft), or by a new
 * run of the finished email workflow from its original input (the steps before are idempotent).
 */
export async function dlqRequeue(config: Config, id: number, by: string): Promise<string> {
  const d = await dlqShow(config, id);
  if (d.status !== QUEUE_STATUS.dead) throw new CliError(`queue row ${id} is ${d.status}, not dead`);
  if (d.step === STEPS.poll) throw new CliError('a dead poll is retried by the schedule; run `email-rag poll` to poll now');
  // A plain requeue would only be refused again, or look like a decision nobody took: make it explicit.
  if (d.send?.status === SEND_STATUS.inDoubt) throw new CliError(`cannot requeue ${id}: ${inDoubtText(d.emailId, d.send.messageId)}`);
  const temporal = await connectTemporal(config);
  const pool = await connectDatabase(config);
  const deadLetters = createMariaDbDeadLetters(pool);
  try {
    // Marked before the step runs again: a new attempt that starts at once (the intake runs in the
    // new run's first workflow task) finds the row to take over instead of leaving it pending.
    const mark = await deadLetters.markRequeued(id, by);
    if (!mark) throw new CliError(`queue row ${id} is no longer dead: someone requeued it just now`);
    const how = await rerun(config, temporal.client, d, by).catch(async (err: unknown) => {
      await deadLetters.undoRequeue(mark, by);
      throw err;
    });
    await createMariaDbAuditLog(pool).record({
      emailId: d.emailId,
      correlationId: d.correlationId,
      eventType: OPERATIONS_AUDIT_EVENTS.dlqRequeued,
      actor: by,
      message: `dead ${d.step} job ${id} requeued by ${by}: ${how}`,
      details: { step: d.step, queueJobId: id },
    });
    return `requeued ${id} (${d.step} of ${d.correlationId}) as ${by}: ${how}`;
  } finally {
    await pool.end();
    await temporal.close();
  }
}

/** `<id>`: a dead letter's number. */
const oneId = (rest: string[]) => rest.length === 1 && Number.isInteger(Number(rest[0])) && Number(rest[0]) > 0;

export const dlqCommands: CliCommand[] = [
  {
    name: 'dlq list',
    usage: 'dlq list [--json]                       dead letters: steps with no automatic retry left',
    options: JSON_OPTION,
    accepts: (rest) => rest.length === 0,
    run: (ctx) => dlqList(ctx.config()),
    format: formatDeadLetters,
  } satisfies CliCommand<DeadLetter[]>,
  {
    name: 'dlq show',
    usage: 'dlq show <id> [--json]                  payload reference, cause, retry history, correlation id',
    options: JSON_OPTION,
    accepts: oneId,
    run: (ctx, { positionals }) => dlqShow(ctx.config(), Number(positionals[0])),
    format: formatDeadLetter,
  } satisfies CliCommand<DeadLetterView>,
  {
    name: 'dlq requeue',
    usage: 'dlq requeue <id> --by NAME              re-run a dead step after a fix',
    options: { by: { type: 'string' } },
    accepts: oneId,
    run(ctx, { positionals, values }) {
      const by = text(values, 'by');
      if (by === undefined || by.trim() === '') throw new CliError('dlq requeue needs --by NAME (who authorised it)', 2);
      return dlqRequeue(ctx.config(), Number(positionals[0]), by);
    },
  } satisfies CliCommand<string>,
  groupUsage('dlq', 'dlq list | dlq show <id> | dlq requeue <id> --by NAME'),
];

/** Runs the dead step again: a signal to the waiting run, or a new run from the original input. */
async function rerun(config: Config, client: TemporalClient, d: DeadLetterView, by: string): Promise<string> {
  const handle = client.workflow.getHandle(d.correlationId);
  const running = (await handle.describe()).status.name === 'RUNNING';
  // Without force: a send in doubt is refused here and needs a person's explicit decision.
  if (running && d.step === STEPS.send) return resend(config, d.correlationId, { by, force: false });
  if (running && d.step === STEPS.draft) return redraft(config, d.correlationId, { by });
  if (running) throw new CliError(`${d.correlationId} is still running and went on without step ${d.step}; nothing to re-run`);
  const history = await handle.fetchHistory();
  const payloads = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  if (!payloads?.length) throw new CliError(`cannot read the original input of ${d.correlationId}`);
  // Through the data converter: the input may be encrypted (PAYLOAD_KEYS), and a key that is
  // no longer configured must say so rather than start a run from garbage.
  const input = await decodeFromPayloadsAtIndex<EmailWorkflowInput>(client.options.loadedDataConverter, 0, payloads).catch(
    (err: unknown) => {
      throw new CliError(`cannot decode the original input of ${d.correlationId}: ${(err as Error).message}`);
    },
  );
  await client.workflow.start(WORKFLOW_TYPES.email, {
    taskQueue: config.temporal.taskQueue,
    workflowId: d.correlationId,
    // The model's time as configured now: the requeue may follow a change of LLM_TIMEOUT_MS.
    args: [{ ...input, llmTimeoutMs: config.llm.timeoutMs }],
    // The only place a finished email may run again: an operator's explicit requeue.
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
  });
  return 'the email workflow was started again from its original input';
}
