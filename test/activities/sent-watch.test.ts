/**
 * The Sent folder's IDLE watch on real Dovecot and MariaDB: every reply the assistant sends is
 * filed there, and a wake-up per copy would start a poll per reply. The watch reads the new
 * messages' Message-IDs and wakes the poll only for what someone else filed. The poll trigger is a
 * double (it counts wake-ups instead of starting a Temporal schedule's run).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MockActivityEnvironment } from '@temporalio/testing';
import { loadConfig } from '../../src/config';
import { createWatchActivities, type IdleDeps } from '../../src/mailboxes';
import { withImap, type ImapLogin } from '../support/imap-session';
import { MAILBOX_PASSWORD, MAILBOX_USER, startStack, type TestStack } from '../support/stack';
import { waitFor } from '../support/wait';
import { activityHarness } from './support';

const OURS = '<reply-0123456789abcdef0123456789abcdef@example.test>';
let stack: TestStack;
let h: ReturnType<typeof activityHarness>;
let login: ImapLogin;

before(async () => {
  stack = await startStack({ temporal: false });
  login = { host: stack.dovecot.host, port: stack.dovecot.port, user: MAILBOX_USER, password: MAILBOX_PASSWORD };
  await withImap(login, async (c) => {
    await c.mailboxCreate('Sent').catch(() => undefined);
  });
  h = activityHarness(loadConfig(stack.env));
  // A reply the send step handed over: the ledger knows its Message-ID.
  await stack.db.pool.query(
    "INSERT INTO send_attempts (draft_id, email_id, message_id, status, attempts, appended_to_sent) VALUES ('d-1', 'e-1', ?, 'sent', 1, 0)",
    [OURS],
  );
});

after(async () => {
  await h?.close();
  await stack?.stop();
});

const filedMessage = (messageId: string | null, subject: string) =>
  [
    `From: Support <${MAILBOX_USER}>`,
    'To: kunde@example.org',
    `Subject: ${subject}`,
    ...(messageId ? [`Message-ID: ${messageId}`] : []),
    `Date: ${new Date().toUTCString()}`,
    '',
    'Erledigt.',
    '',
  ].join('\r\n');

const fileInSent = (raw: string) => withImap(login, (c) => c.append('Sent', raw));

test('the copy of a reply we sent wakes no poll; a reply a person files, or one without a Message-ID, does', async () => {
  const wakes: string[] = [];
  const looked: string[][] = [];
  const wired = h.deps.activities.idle!;
  const store = h.deps.activities.outsideReplies!;
  const idle: IdleDeps = {
    ...wired,
    // Double of the Temporal poll trigger: counts the wake-ups.
    pollTrigger: { wake: async (mailboxId) => (wakes.push(mailboxId), 'started') },
    ownReplies: {
      ours: async (ids) => {
        looked.push([...ids]);
        return store.oursAmong(ids);
      },
    },
  };
  const acts = createWatchActivities({ mailboxes: h.deps.activities.mailboxes, audit: h.deps.activities.audit, idle });
  const env = new MockActivityEnvironment({ attempt: 1 });
  const watching = env.run(acts.watchFolder, { mailboxId: 'default', folder: 'Sent', untilMs: Date.now() + 10 * 60_000 });
  try {
    // Connecting wakes the poll once (for mail filed while no one watched).
    await waitFor('the watch connected', async () => wakes.length === 1 || undefined, 30_000);

    await fileInSent(filedMessage(OURS, 'Re: Passwort'));
    await waitFor('our copy looked up', async () => looked.some((ids) => ids.includes(OURS)) || undefined, 30_000);

    await fileInSent(filedMessage('<anna-1@example.test>', 'Re: Rückfrage'));
    await waitFor('the person’s reply woke the poll', async () => wakes.length === 2 || undefined, 30_000);
    assert.ok(
      looked.some((ids) => ids.includes('<anna-1@example.test>')),
      'the person’s reply was looked up too',
    );

    await fileInSent(filedMessage(null, 'Notiz ohne Message-ID'));
    await waitFor('a message without a Message-ID woke the poll', async () => wakes.length === 3 || undefined, 30_000);
    assert.deepEqual(wakes, ['default', 'default', 'default'], 'one wake-up on connecting, one per message that is not ours');
  } finally {
    env.cancel();
    await watching.catch(() => undefined);
  }
});

test('the send ledger tells ours among many Message-IDs in one look', async () => {
  const store = h.deps.activities.outsideReplies!;
  const ids = [OURS, '<anna-1@example.test>', OURS, `<${'x'.repeat(1200)}@example.test>`];
  assert.deepEqual([...(await store.oursAmong(ids))], [OURS]);
  assert.equal((await store.oursAmong([])).size, 0);
});
