/**
 * The steps' own last look (real MariaDB, Dovecot and SMTP listener; no Temporal): an approved
 * reply whose mail a person answered meanwhile is never handed to SMTP, and a mailbox in shadow
 * mode sends nothing whoever asks.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { StandDownError } from '../../src/platform/errors';
import { loadConfig } from '../../src/config';
import { FOUND_VIA, MATCHED_BY } from '../../src/email/answered-elsewhere/outside-replies.port';
import { sampleEmail, startStack, type TestStack } from '../support/stack';
import { activityHarness, approveDelivered, inboxDelivery } from './support';

let stack: TestStack;
let live: ReturnType<typeof activityHarness>;
let shadow: ReturnType<typeof activityHarness>;

before(async () => {
  stack = await startStack({ temporal: false });
  live = activityHarness(stack.config);
  const config = loadConfig(stack.env);
  config.mailboxes = config.mailboxes.map((m) => ({ ...m, mode: 'shadow' as const }));
  shadow = activityHarness(config);
});
after(async () => {
  await live?.close();
  await shadow?.close();
  await stack?.stop();
});

const codeOf = (err: unknown) => (err instanceof ApplicationFailure ? err.type : (err as { code?: string }).code);

test('the send step looks once more: a mail a person answered after the approval is not sent, as a stand-down', async () => {
  const m = await approveDelivered(live, await inboxDelivery(stack, live)(sampleEmail({ messageId: '<late-1@customer.example>' })));
  const before = stack.smtp.messages.length;
  await live.deps.activities.outsideReplies!.record(
    {
      mailboxId: 'default',
      messageId: '<colleague-late@example.test>',
      foundVia: FOUND_VIA.sentFolder,
      folder: 'Sent',
      from: { name: 'Anna', address: 'anna@example.test' },
      to: ['erika@customer.example'],
      subject: 'Re: Rechnung 2024-117 doppelt abgebucht',
      inReplyTo: '<late-1@customer.example>',
      references: [],
      text: 'Erledigt.',
      sentAt: new Date(),
    },
    [{ emailId: m.emailId, matchedBy: MATCHED_BY.inReplyTo }],
  );
  const err = await live.run(m.emailId, live.activities.sendReply, { emailId: m.emailId, draftId: m.draftId }).catch((e: unknown) => e);
  assert.equal(codeOf(err), 'ANSWERED_ELSEWHERE', String(err));
  assert.match(String((err as Error).message), /anna@example\.test.*<colleague-late@example\.test>/);
  assert.equal(stack.smtp.messages.length, before, 'nothing reached the SMTP listener');
  // Not a failure of the step: a stand-down (its queue row ends done, workers/queue-interceptor.ts).
  assert.ok(err instanceof StandDownError, String(err));
  const sends = (await stack.db.pool.query('SELECT COUNT(*) AS n FROM send_attempts WHERE draft_id = ?', [m.draftId])) as Array<{
    n: bigint;
  }>;
  assert.equal(Number(sends[0]!.n), 0, 'no send row was opened for it');
});

test('shadow mode: the draft asks nobody, and the send step refuses whoever approved it', async () => {
  const m = await approveDelivered(shadow, await inboxDelivery(stack, shadow)(sampleEmail({ messageId: '<shadow-1@customer.example>' })));
  assert.equal(m.draft.shadow, true, 'the draft knows its mailbox is in shadow mode');
  const before = stack.smtp.messages.length;
  const err = await shadow.run(m.emailId, shadow.activities.sendReply, { emailId: m.emailId, draftId: m.draftId }).catch((e: unknown) => e);
  assert.equal(codeOf(err), 'SHADOW_MODE', String(err));
  assert.match(String((err as Error).message), /shadow mode: nothing is sent/);
  assert.equal(stack.smtp.messages.length, before);
});
