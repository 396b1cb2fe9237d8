/**
 * The paths an email can take through EmailWorkflow (and the poll's and the IDLE watcher's, see
 * poll-scenarios.ts and watch-scenarios.ts), each driven on real servers so that its history is
 * what production records. test/replay/capture-histories.ts runs them and saves the
 * histories of the release that test/replay/replay.test.ts replays against the workflow code of
 * today (see docs/changing-workflows.md).
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ingest } from '../../../src/archive-import/ingest.cli';
import { waitFor } from '../../support/wait';
import {
  approveSignal,
  approveUpdate,
  markSentSignal,
  markSentUpdate,
  redraftUpdate,
  rejectSignal,
  rejectUpdate,
  resendUpdate,
  stateQuery,
} from '../../../src/email/email.workflow';
import {
  currentDraft,
  deliver,
  finish,
  handedOver,
  mailOf,
  refused,
  resetWorkflow,
  waitingFor,
  type CaptureContext,
  type Handle,
  type Scenario,
} from './scenario-kit';

import { POLL_SCENARIOS } from './poll-scenarios';
import { WATCH_SCENARIOS } from './watch-scenarios';
import { CASE_SCENARIOS } from './case-scenarios';
export type { CaptureContext, Scenario } from './scenario-kit';

const EDITED = 'Guten Tag,\n\ndie doppelte Abbuchung erstatten wir Ihnen in den nächsten Tagen.\n\nViele Grüße\nIhr Support-Team';

async function approveWhenWaiting(handle: Handle, body?: string): Promise<Handle> {
  const draftId = await currentDraft(handle);
  await handle.executeUpdate(approveUpdate, { args: [{ draftId, by: 'ops', ...(body !== undefined ? { body } : {}) }] });
  return finish(handle, 'sent');
}

/**
 * The listener reads the reply to its final dot and never answers; the worker's SMTP timeout ends
 * the wait, so the send is in doubt. Later copies to `to` are accepted.
 */
async function sendInDoubt(ctx: CaptureContext, name: string): Promise<Handle> {
  const to = `${name}@customer.example`;
  let held = false;
  ctx.smtp.addRule((m) => (!m.rcptTo.includes(to) ? undefined : held ? 'done' : ((held = true), { kind: 'hold' })));
  const handOver = handedOver(ctx, to);
  const handle = await deliver(ctx, mailOf(name, 'Zahlung bestätigt?'));
  const draftId = await currentDraft(handle);
  await handle.executeUpdate(approveUpdate, { args: [{ draftId, by: 'ops' }] });
  await handOver;
  ctx.log(`  ${name}: the listener holds the reply after its final dot; waiting for the SMTP timeout`);
  await waitingFor(handle, ['send_in_doubt'], 120_000);
  // A plain resend is refused while the send is in doubt: a person must say what the SMTP log showed.
  await refused('resend without force', () => handle.executeUpdate(resendUpdate, { args: [{ by: 'ops' }] }));
  return handle;
}

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
    name: 'reject',
    expect: 'rejected',
    run: async (ctx) => {
      const handle = await deliver(ctx, mailOf('reject', 'Kündigung Vertrag 8812'));
      const draftId = await currentDraft(handle);
      await handle.executeUpdate(rejectUpdate, { args: [{ draftId, by: 'ops', reason: 'answered by phone' }] });
      return finish(handle, 'rejected');
    },
  },
  {
    name: 'reject-spam',
    expect: 'rejected',
    run: async (ctx) => {
      const handle = await deliver(ctx, mailOf('reject-spam', 'Ihr Gewinn wartet'));
      const draftId = await currentDraft(handle);
      await handle.executeUpdate(rejectUpdate, { args: [{ draftId, by: 'ops', spam: true }] });
      return finish(handle, 'rejected');
    },
  },
  {
    name: 'redraft-then-approve',
    expect: 'sent',
    run: async (ctx) => {
      const handle = await deliver(ctx, mailOf('redraft', 'Lieferverzug Auftrag 5521'));
      const first = await currentDraft(handle);
      await handle.executeUpdate(redraftUpdate, { args: [{ draftId: first, by: 'ops' }] });
      const w = await waitingFor(handle, ['approval']);
      if (w.draftId === first || !('version' in w) || w.version !== 2)
        throw new Error(`expected draft 2, waiting for ${JSON.stringify(w)}`);
      return approveWhenWaiting(handle);
    },
  },
  {
    name: 'waiting-for-approval',
    expect: 'running',
    run: async (ctx) => {
      const handle = await deliver(ctx, mailOf('waiting', 'Frage zum Tarif'));
      await currentDraft(handle);
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
      const { lines } = await ingest(ctx.config, file, { history: true });
      const emailId = lines[0]?.split('\t')[0];
      if (!emailId?.startsWith('email-file-')) throw new Error(`ingest did not start a workflow: ${lines[0]}`);
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
    name: 'triaged-ignored',
    expect: 'ignored',
    run: async (ctx) => {
      const ooo = mailOf('ooo', 'Abwesenheitsnotiz: Re: Rechnung 2024-117', {
        body: 'Ich bin bis zum 14. Dezember nicht im Büro und lese meine E-Mails nicht.',
        extra: ['Auto-Submitted: auto-replied', 'X-Autoreply: yes'],
      });
      return finish(await deliver(ctx, ooo), 'ignored');
    },
  },
  {
    name: 'thread-follow-up',
    expect: 'sent',
    run: async (ctx) => {
      const handle = await deliver(ctx, mailOf('thread', 'Retoure 3141'));
      const first = await currentDraft(handle);
      // The same customer writes again in the thread: the waiting draft is stale, a new one is written.
      const followUp = mailOf('thread', 'Re: Retoure 3141', {
        messageId: '<thread-2@customer.example>',
        body: 'Nachtrag: Die Retoure 3141 enthält auch das Ladekabel.',
        extra: ['In-Reply-To: <thread@customer.example>', 'References: <thread@customer.example>'],
      });
      const second = await deliver(ctx, followUp);
      await waitFor(
        'a new draft after the follow-up',
        async () => {
          const now = (await handle.query(stateQuery)).waitingFor;
          return now?.kind === 'approval' && now.draftId !== first;
        },
        180_000,
        300,
      );
      const w = await waitingFor(handle, ['approval']);
      await refused('approve of the stale draft', () => handle.executeUpdate(approveUpdate, { args: [{ draftId: first, by: 'ops' }] }));
      await handle.executeUpdate(approveUpdate, { args: [{ draftId: w.draftId, by: 'ops' }] });
      // The follow-up itself is answered by the reply above.
      const secondDraft = await currentDraft(second);
      await second.executeUpdate(rejectUpdate, { args: [{ draftId: secondDraft, by: 'ops', reason: 'answered in the thread' }] });
      return finish(handle, 'sent');
    },
  },
  {
    name: 'refused-decisions',
    expect: 'sent',
    run: async (ctx) => {
      const handle = await deliver(ctx, mailOf('refused', 'Bestellung 7781 storniert?'));
      const draftId = await currentDraft(handle);
      const stale = `${draftId.replace(/:draft:\d+$/, '')}:draft:99`;
      await refused('approve of an unknown draft', () => handle.executeUpdate(approveUpdate, { args: [{ draftId: stale, by: 'ops' }] }));
      // Signals cannot be answered: the workflow refuses them, shows them in `state` and audits them.
      await handle.signal(approveSignal, { draftId: stale, by: 'script' });
      await handle.signal(markSentSignal, { draftId: stale, by: 'script' });
      await refusedSignals(handle, 2);
      // Two people decide at once: the first wins, the second is refused.
      await handle.signal(approveSignal, { draftId, by: 'anna' });
      await handle.signal(rejectSignal, { draftId, by: 'ben', reason: 'too late' });
      await finish(handle, 'sent');
      const refusals = (await handle.query(stateQuery)).refusals;
      if (refusals.length < 3) throw new Error(`expected 3 refused signals, state shows ${JSON.stringify(refusals)}`);
      return handle;
    },
  },
  {
    name: 'send-failed-round-resend',
    expect: 'sent',
    run: async (ctx) => {
      const to = 'send-failed@customer.example';
      let deferred = 0;
      // The receiving server defers the whole first round (3 attempts, 30 s and 120 s apart).
      ctx.smtp.addRule((m) =>
        !m.rcptTo.includes(to) ? undefined : deferred++ < 3 ? { kind: 'refuse', code: 451, message: 'try later' } : 'done',
      );
      const handle = await deliver(ctx, mailOf('send-failed', 'Adresse ändern'));
      const draftId = await currentDraft(handle);
      await handle.executeUpdate(approveUpdate, { args: [{ draftId, by: 'ops' }] });
      ctx.log('  send-failed-round-resend: waiting for the first SMTP round to run out (about 150 s)');
      // The round gave up and the workflow waits on its 1-hour timer: a person asks for the resend.
      await waitingFor(handle, ['send_round'], 400_000);
      await handle.executeUpdate(resendUpdate, { args: [{ by: 'ops' }] });
      return finish(handle, 'sent');
    },
  },
  {
    name: 'send-in-doubt-force',
    expect: 'sent',
    run: async (ctx) => {
      const handle = await sendInDoubt(ctx, 'in-doubt-force');
      // A person checked the SMTP log and found nothing delivered: one more attempt.
      const { waitingFor } = await handle.query(stateQuery);
      const draftId = waitingFor && 'draftId' in waitingFor ? waitingFor.draftId : '';
      await handle.executeUpdate(resendUpdate, { args: [{ draftId, by: 'ops', force: true }] });
      return finish(handle, 'sent');
    },
  },
  {
    name: 'send-in-doubt-mark-sent',
    expect: 'sent',
    run: async (ctx) => {
      const handle = await sendInDoubt(ctx, 'in-doubt-mark');
      const { waitingFor } = await handle.query(stateQuery);
      const draftId = waitingFor && 'draftId' in waitingFor ? waitingFor.draftId : '';
      await handle.executeUpdate(markSentUpdate, { args: [{ draftId, by: 'ops', note: 'the customer confirmed receipt by phone' }] });
      return finish(handle, 'sent');
    },
  },
  {
    name: 'reset-after-sent',
    expect: 'sent',
    run: async (ctx) => {
      const to = 'reset@customer.example';
      let copies = 0;
      ctx.smtp.events.on('data-end', (m) => void (m.rcptTo.includes(to) && (copies += 1)));
      const handle = await approveWhenWaiting(await deliver(ctx, mailOf('reset', 'Gutschrift erhalten?')));
      const first = (await handle.describe()).runId;
      await resetWorkflow(ctx, handle.workflowId, 'FirstWorkflowTask');
      // Without a run id the handle follows the new run: its history is the one saved.
      const current = ctx.client.workflow.getHandle(handle.workflowId);
      await finish(current, 'sent');
      if ((await current.describe()).runId === first) throw new Error('the reset started no new run');
      if (copies !== 1) throw new Error(`the listener received ${copies} copies of the reply; exactly one was sent`);
      return current;
    },
  },
  {
    name: 'manual-review-approve-body',
    alone: true,
    expect: 'sent',
    run: async (ctx) => {
      // Both attempts time out (LLM_TIMEOUT_MS is below the delay): the LLM gave up, a person writes.
      ctx.llm.script({ kind: 'delay', ms: 8_000, for: 'email_draft' }, { kind: 'delay', ms: 8_000, for: 'email_draft' });
      const handle = await deliver(ctx, mailOf('manual-review', 'Passwort zurücksetzen'));
      const draftId = await currentDraft(handle, ['manual_review']);
      await refused('approve without a body', () => handle.executeUpdate(approveUpdate, { args: [{ draftId, by: 'ops' }] }));
      await handle.executeUpdate(approveUpdate, { args: [{ draftId, by: 'ops', body: EDITED }] });
      return finish(handle, 'sent');
    },
  },
  ...POLL_SCENARIOS,
  ...WATCH_SCENARIOS,
  ...CASE_SCENARIOS,
];

/** Waits until the `state` query lists `n` refused signals. */
async function refusedSignals(handle: Handle, n: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await handle.query(stateQuery)).refusals.length >= n) return;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${handle.workflowId}: ${n} refused signals expected in state`);
}
