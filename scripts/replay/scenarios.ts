/**
 * The paths an email can take through EmailWorkflow, each driven on real servers so that its
 * history is what production records. scripts/capture-histories.ts runs them and saves the
 * histories that test/replay/replay.test.ts replays against every later version of the workflow.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { ingest } from '../../cli/commands/ingest';
import type { Config } from '../../lib/config';
import {
  approveSignal,
  redraftSignal,
  rejectSignal,
  resendSignal,
  stateQuery,
  type EmailWorkflowResult,
} from '../../workflows/email-workflow';
import { appendMessages, startImapEmail } from '../services/imap-intake';
import type { SwitchableSmtp } from '../services/switchable-smtp';
import { sampleEmail } from '../../test/support/stack';
import { waitFor } from '../../test/support/wait';
import type { OpenAiDouble } from '../../test/doubles/openai-double';

export interface CaptureContext {
  client: Client;
  config: Config;
  smtp: SwitchableSmtp;
  llm: OpenAiDouble;
  dir: string;
  /** Kills the worker with SIGKILL (or stops it) and starts a new one. */
  restartWorker(how: 'kill' | 'stop'): Promise<void>;
  log(line: string): void;
}

export interface Scenario {
  name: string;
  /** Runs alone (it scripts a shared server or kills the worker) rather than beside the others. */
  alone?: boolean;
  /** The email status the run must end with; `running` for a history that stays open. */
  expect: string;
  run(ctx: CaptureContext): Promise<WorkflowHandle>;
}

type Handle = WorkflowHandle;

/** Appends a message over IMAP and starts its workflow the way the poll does. */
async function deliver(ctx: CaptureContext, raw: string | Buffer, uidOffset = 0): Promise<Handle> {
  const [appended] = await appendMessages(ctx.config, [raw]);
  // An offset names a UID that no longer exists: the message was expunged after the poll saw it.
  const emailId = await startImapEmail(ctx.client, ctx.config, { uidValidity: appended!.uidValidity, uid: appended!.uid + uidOffset });
  return ctx.client.workflow.getHandle(emailId);
}

/** A customer of its own per scenario, so SMTP rules can tell the replies apart. */
function mailOf(name: string, subject = 'Rechnung 2024-117 doppelt abgebucht'): string {
  return sampleEmail({ from: `Kunde ${name} <${name}@customer.example>`, subject, messageId: `<${name}@customer.example>` });
}

async function waitForStatus(handle: Handle, statuses: string[], timeoutMs = 120_000): Promise<void> {
  await waitFor(
    `${handle.workflowId} in ${statuses.join('/')}`,
    async () => statuses.includes((await handle.query(stateQuery)).status),
    timeoutMs,
    300,
  );
}

type HistoryEvent = NonNullable<Awaited<ReturnType<Handle['fetchHistory']>>['events']>[number];

/**
 * Nothing in flight: no pending activity and no workflow task. A signal sent now meets the
 * workflow in its wait, not in the middle of its bookkeeping.
 */
async function waitSettled(handle: Handle, extra: (events: HistoryEvent[]) => boolean = () => true) {
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

async function finish(handle: Handle, expected: string): Promise<Handle> {
  const result = (await handle.result()) as EmailWorkflowResult;
  if (result.status !== expected) throw new Error(`${handle.workflowId} ended ${result.status}, expected ${expected}`);
  return handle;
}

async function approveWhenWaiting(handle: Handle, body?: string): Promise<Handle> {
  await waitForStatus(handle, ['awaiting_approval']);
  await waitSettled(handle);
  await handle.signal(approveSignal, { by: 'ops', ...(body !== undefined ? { body } : {}) });
  return finish(handle, 'sent');
}

const EDITED = 'Guten Tag,\n\ndie doppelte Abbuchung erstatten wir Ihnen in den nächsten Tagen.\n\nViele Grüße\nIhr Support-Team';

export const SCENARIOS: Scenario[] = [
  {
    name: 'approve-sent',
    expect: 'sent',
    run: async (ctx) => approveWhenWaiting(await deliver(ctx, mailOf('approve-sent'))),
  },
  {
    name: 'approve-edited-sent',
    expect: 'sent',
    run: async (ctx) => approveWhenWaiting(await deliver(ctx, mailOf('approve-edited-sent')), EDITED),
  },
  {
    name: 'approve-twice-second-ignored',
    expect: 'sent',
    run: async (ctx) => {
      const handle = await deliver(ctx, mailOf('approve-twice'));
      await waitForStatus(handle, ['awaiting_approval']);
      await waitSettled(handle);
      // Two people approve at once: the second decision is recorded as ignored, never applied.
      await Promise.all([handle.signal(approveSignal, { by: 'anna' }), handle.signal(approveSignal, { by: 'ben', body: EDITED })]);
      return finish(handle, 'sent');
    },
  },
  {
    name: 'reject',
    expect: 'rejected',
    run: async (ctx) => {
      const handle = await deliver(ctx, mailOf('reject', 'Kündigung Vertrag 8812'));
      await waitForStatus(handle, ['awaiting_approval']);
      await waitSettled(handle);
      await handle.signal(rejectSignal, { by: 'ops', reason: 'answered by phone' });
      return finish(handle, 'rejected');
    },
  },
  {
    name: 'redraft-then-approve',
    expect: 'sent',
    run: async (ctx) => {
      const handle = await deliver(ctx, mailOf('redraft', 'Lieferverzug Auftrag 5521'));
      await waitForStatus(handle, ['awaiting_approval']);
      await waitSettled(handle);
      await handle.signal(redraftSignal, { by: 'ops' });
      await waitFor('the second draft', async () => (await handle.query(stateQuery)).draft?.version === 2, 120_000, 300);
      return approveWhenWaiting(handle);
    },
  },
  {
    name: 'waiting-for-approval',
    expect: 'running',
    run: async (ctx) => {
      const handle = await deliver(ctx, mailOf('waiting', 'Frage zum Tarif'));
      await waitForStatus(handle, ['awaiting_approval']);
      await waitSettled(handle);
      return handle;
    },
  },
  {
    name: 'history-only',
    expect: 'indexed',
    run: async (ctx) => {
      // `email-rag ingest --history`: an archive is indexed for retrieval and never answered.
      const file = path.join(ctx.dir, 'history-only.eml');
      writeFileSync(file, mailOf('history-only', 'Alte Korrespondenz'));
      const [line] = await ingest(ctx.config, file, { history: true });
      const emailId = line?.split('\t')[0];
      if (!emailId?.startsWith('email-file-')) throw new Error(`ingest did not start a workflow: ${line}`);
      return finish(ctx.client.workflow.getHandle(emailId), 'indexed');
    },
  },
  {
    name: 'parse-failed',
    expect: 'failed',
    // No header block at all: mailparser would take it, the product refuses it as MALFORMED_MESSAGE.
    run: async (ctx) => finish(await deliver(ctx, '\r\nkein Header, nur Text\r\n'), 'failed'),
  },
  {
    name: 'fetch-failed',
    expect: 'failed',
    // The message was expunged between the poll and the fetch: MESSAGE_GONE, permanent.
    run: async (ctx) => finish(await deliver(ctx, mailOf('fetch-failed'), 1000), 'failed'),
  },
  {
    name: 'send-failed-round-resend',
    expect: 'sent',
    run: async (ctx) => {
      const to = 'send-failed@customer.example';
      let refused = 0;
      // The receiving server defers the whole first round (3 attempts, 30 s and 120 s apart).
      ctx.smtp.addRule((m) =>
        !m.rcptTo.includes(to) ? undefined : refused++ < 3 ? { kind: 'refuse', code: 451, message: 'try later' } : 'done',
      );
      const handle = await deliver(ctx, mailOf('send-failed', 'Adresse ändern'));
      await waitForStatus(handle, ['awaiting_approval']);
      await waitSettled(handle);
      await handle.signal(approveSignal, { by: 'ops' });
      ctx.log('  send-failed-round-resend: waiting for the first SMTP round to run out (about 150 s)');
      // The round gave up and the workflow waits on its 1-hour timer: a person asks for the resend.
      await waitSettled(handle, (events) => events.some((e) => e.timerStartedEventAttributes));
      await handle.signal(resendSignal, { by: 'ops' });
      return finish(handle, 'sent');
    },
  },
  {
    name: 'manual-review-approve-body',
    alone: true,
    expect: 'sent',
    run: async (ctx) => {
      // Both attempts time out (LLM_TIMEOUT_MS is below the delay): the LLM gave up, a person writes.
      ctx.llm.script({ kind: 'delay', ms: 8_000 }, { kind: 'delay', ms: 8_000 });
      const handle = await deliver(ctx, mailOf('manual-review', 'Passwort zurücksetzen'));
      await waitForStatus(handle, ['manual_review'], 180_000);
      await waitSettled(handle);
      await handle.signal(approveSignal, { by: 'ops', body: EDITED });
      return finish(handle, 'sent');
    },
  },
  {
    name: 'send-in-doubt-force',
    alone: true,
    expect: 'sent',
    run: async (ctx) => {
      const to = 'in-doubt@customer.example';
      // The server reads the message to its final dot and never answers: the hand-over is in doubt.
      let held = false;
      ctx.smtp.addRule((m) => (!m.rcptTo.includes(to) ? undefined : held ? 'done' : ((held = true), { kind: 'hold' })));
      const handedOver = new Promise<void>((resolve) => {
        const on = (m: { rcptTo: string[] }) => {
          if (!m.rcptTo.includes(to)) return;
          ctx.smtp.events.off('data-end', on);
          resolve();
        };
        ctx.smtp.events.on('data-end', on);
      });
      const handle = await deliver(ctx, mailOf('in-doubt', 'Zahlung bestätigt?'));
      await waitForStatus(handle, ['awaiting_approval']);
      await waitSettled(handle);
      await handle.signal(approveSignal, { by: 'ops' });
      await handedOver;
      ctx.log('  send-in-doubt-force: worker killed during the SMTP hand-over; the retry finds the send in doubt');
      await ctx.restartWorker('kill');
      ctx.smtp.releaseHeld();
      await waitSettled(handle, (events) =>
        events.some((e) => e.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type === 'SEND_IN_DOUBT'),
      );
      // A person checked the SMTP log and found nothing delivered: send it after all.
      await handle.signal(resendSignal, { by: 'ops', force: true });
      return finish(handle, 'sent');
    },
  },
];
