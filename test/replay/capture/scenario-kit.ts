/**
 * What the capture scenarios share: delivering a message the way the poll does, waiting until a
 * run waits for a person, and deciding by Update on the draft the `state` query names.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { Config } from '../../../src/config';
import { stateQuery, type EmailWorkflowResult, type WaitingFor } from '../../../src/email/email.workflow';
import { sampleEmail } from '../../support/stack';
import { waitFor } from '../../support/wait';
import type { OpenAiDouble } from '../../doubles/openai-double';
import { appendMessages, startImapEmail } from '../../support/services/imap-intake';
import type { SwitchableSmtp } from '../../support/services/switchable-smtp';
import { temporalCliPath } from '../../support/services/tool-paths';

export interface CaptureContext {
  client: Client;
  config: Config;
  smtp: SwitchableSmtp;
  llm: OpenAiDouble;
  dir: string;
  log(line: string): void;
}

export interface Scenario {
  name: string;
  /** Runs alone (it scripts a shared server) rather than beside the others. */
  alone?: boolean;
  /** The email status the run must end with; `running` for a history that stays open. */
  expect: string;
  run(ctx: CaptureContext): Promise<WorkflowHandle>;
}

export type Handle = WorkflowHandle;
type HistoryEvent = NonNullable<Awaited<ReturnType<Handle['fetchHistory']>>['events']>[number];

/** Appends a message over IMAP and starts its workflow the way the poll does. */
export async function deliver(ctx: CaptureContext, raw: string | Buffer): Promise<Handle> {
  const [appended] = await appendMessages(ctx.config, [raw]);
  const emailId = await startImapEmail(ctx.client, ctx.config, { uidValidity: appended!.uidValidity, uid: appended!.uid });
  return ctx.client.workflow.getHandle(emailId);
}

/** A customer of its own per scenario, so SMTP rules can tell the replies apart. */
export function mailOf(
  name: string,
  subject = 'Rechnung 2024-117 doppelt abgebucht',
  extra: Partial<Parameters<typeof sampleEmail>[0]> = {},
) {
  return sampleEmail({ from: `Kunde ${name} <${name}@customer.example>`, subject, messageId: `<${name}@customer.example>`, ...extra });
}

/**
 * Nothing in flight: no pending activity and no workflow task. A decision sent now meets the
 * workflow in its wait, not in the middle of its bookkeeping, so histories have one shape.
 */
export async function waitSettled(handle: Handle, extra: (events: HistoryEvent[]) => boolean = () => true): Promise<void> {
  await waitFor(
    `${handle.workflowId} settled`,
    async () => {
      const d = await handle.describe();
      if ((d.raw.pendingActivities ?? []).length > 0 || d.raw.pendingWorkflowTask) return false;
      return extra((await handle.fetchHistory()).events ?? []);
    },
    240_000,
    500,
  );
}

/** Waits until the run waits for a decision of one of `kinds` and is settled; what it waits for. */
export async function waitingFor(handle: Handle, kinds: Array<WaitingFor['kind']>, timeoutMs = 180_000): Promise<WaitingFor> {
  await waitFor(
    `${handle.workflowId} waiting for ${kinds.join('/')}`,
    async () => {
      const w = (await handle.query(stateQuery)).waitingFor;
      return w !== null && kinds.includes(w.kind);
    },
    timeoutMs,
    300,
  );
  await waitSettled(handle);
  const w = (await handle.query(stateQuery)).waitingFor;
  if (!w || !kinds.includes(w.kind)) throw new Error(`${handle.workflowId} stopped waiting for ${kinds.join('/')}`);
  return w;
}

/** The draft id a reviewer reads in the `state` query now. */
export async function currentDraft(handle: Handle, kinds: Array<WaitingFor['kind']> = ['approval']): Promise<string> {
  return (await waitingFor(handle, kinds)).draftId;
}

export async function finish(handle: Handle, expected: string): Promise<Handle> {
  const result = (await handle.result()) as EmailWorkflowResult;
  if (result.status !== expected) throw new Error(`${handle.workflowId} ended ${result.status}, expected ${expected}`);
  return handle;
}

/** Runs a decision that must be refused by its validator; the refusal text is returned. */
export async function refused(what: string, decide: () => Promise<unknown>): Promise<string> {
  try {
    await decide();
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) return err.cause?.message ?? err.message;
    throw err;
  }
  throw new Error(`${what} was accepted; it must be refused`);
}

/** `temporal workflow reset` through the real CLI, as an operator runs it. */
export async function resetWorkflow(
  ctx: CaptureContext,
  workflowId: string,
  type: 'FirstWorkflowTask' | 'LastWorkflowTask',
): Promise<void> {
  const args = ['workflow', 'reset', '--address', ctx.config.temporal.address, '--namespace', ctx.config.temporal.namespace];
  args.push('--workflow-id', workflowId, '--type', type, '--reason', 'operator reset after sent', '--yes');
  await promisify(execFile)(temporalCliPath(), args);
}

/**
 * Resolves when the listener has read a message for `to` to its final dot: from then on the
 * message may have been handed over.
 */
export function handedOver(ctx: CaptureContext, to: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const on = (m: { rcptTo: string[] }) => {
      if (!m.rcptTo.includes(to)) return;
      ctx.smtp.events.off('data-end', on);
      resolve();
    };
    ctx.smtp.events.on('data-end', on);
  });
}
