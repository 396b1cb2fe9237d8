/**
 * Mailboxes of one team share context and threads, whatever their account; a mailbox outside the
 * team sees none of it; an email whose mailbox left the registry is refused clearly. The
 * activities run with the worker's own dependencies on real Dovecot (three accounts) and MariaDB.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config';
import { imapEmailId } from '../../src/email/email-input';
import { MAILBOX_PASSWORD, MAILBOX_USER, sampleEmail, startStack, type TestStack } from '../support/stack';
import { activityHarness } from './support';

const SALES_USER = 'sales@example.test';
const BILLING_USER = 'billing@example.test';
const USERS: Record<string, string> = { support: MAILBOX_USER, sales: SALES_USER, billing: BILLING_USER };

let stack: TestStack;
let h: ReturnType<typeof activityHarness>;

before(async () => {
  stack = await startStack({
    temporal: false,
    extraUsers: [
      { user: SALES_USER, password: 'sales-pw' },
      { user: BILLING_USER, password: 'billing-pw' },
    ],
  });
  const registry = path.join(stack.dir, 'mailboxes.json');
  const entry = (id: string, pw: string, team?: string) => ({
    id,
    ...(team ? { team } : {}),
    imap: { user: USERS[id], password: { env: pw } },
    smtp: { from: USERS[id] },
  });
  writeFileSync(
    registry,
    JSON.stringify({
      version: 1,
      mailboxes: [entry('support', 'SUPPORT_PW', 'front'), entry('sales', 'SALES_PW', 'front'), entry('billing', 'BILLING_PW')],
    }),
  );
  h = activityHarness(
    loadConfig({ ...stack.env, MAILBOXES_FILE: registry, SUPPORT_PW: MAILBOX_PASSWORD, SALES_PW: 'sales-pw', BILLING_PW: 'billing-pw' }),
  );
});

after(async () => {
  await h?.close();
  await stack?.stop();
});

/** Delivers to a mailbox and runs fetch, parse and index as the workflow would; returns the email id. */
async function arrive(mailboxId: string, raw: string): Promise<string> {
  const user = USERS[mailboxId]!;
  await stack.dovecot.deliver(user, raw);
  const listing = await h.deps.activities.mailboxes.get(mailboxId).imap.listSince('INBOX', 0, 100);
  const uid = listing.messages.at(-1)!.uid;
  const emailId = imapEmailId(user, 'INBOX', listing.uidValidity, uid);
  const input = { emailId, source: { kind: 'imap' as const, mailboxId, mailbox: 'INBOX', uidValidity: listing.uidValidity, uid } };
  await h.run(emailId, h.activities.fetchEmail, input);
  await h.run(emailId, h.activities.parseEmail, { emailId });
  await h.run(emailId, h.activities.indexEmail, { emailId });
  return emailId;
}

const draft = async (emailId: string) => (await h.run(emailId, h.activities.draftReply, { emailId, version: 1 })).draftId;
async function contextOf(draftId: string): Promise<string[]> {
  return (await h.deps.activities.drafts.get(draftId))?.contextIds ?? [];
}

const erika = 'Erika Mustermann <erika@customer.example>';

test('one team shares context and threads across accounts; a mailbox outside it sees none of it', async () => {
  const first = await arrive(
    'support',
    sampleEmail({ from: erika, subject: 'Angebot für 40 Stühle', messageId: '<t-1@customer.example>' }),
  );
  const outside = await arrive(
    'billing',
    sampleEmail({ from: erika, subject: 'Angebot für 40 Stühle', messageId: '<t-2@customer.example>' }),
  );
  // Erika follows up on her first mail, but writes to the sales address of the same team.
  const followUp = await arrive(
    'sales',
    sampleEmail({
      from: erika,
      subject: 'Re: Angebot für 40 Stühle',
      messageId: '<t-3@customer.example>',
      extra: ['In-Reply-To: <t-1@customer.example>', 'References: <t-1@customer.example>'],
    }),
  );
  const email = async (id: string) => (await h.deps.activities.messages.getEmail(id))!;
  assert.equal((await email(followUp)).threadId, (await email(first)).threadId, 'the team’s thread is joined across accounts');
  assert.notEqual((await email(outside)).threadId, (await email(first)).threadId);

  const teamContext = await contextOf(await draft(followUp));
  assert.ok(teamContext.includes(first), `the team mailbox sees the thread: ${JSON.stringify(teamContext)}`);
  assert.ok(!teamContext.includes(outside), 'billing is another account and no team member');
  const outsideContext = await contextOf(await draft(outside));
  assert.ok(!outsideContext.includes(first) && !outsideContext.includes(followUp), JSON.stringify(outsideContext));

  const rows = (await stack.db.pool.query('SELECT id, mailbox_id, account FROM emails ORDER BY id')) as Array<Record<string, string>>;
  assert.deepEqual(
    Object.fromEntries(rows.map((r) => [r.id, [r.mailbox_id, r.account]])),
    { [first]: ['support', 'team:front'], [outside]: ['billing', BILLING_USER], [followUp]: ['sales', 'team:front'] },
    'each email names its mailbox; team members share one isolation key, the lone account keeps its own',
  );
});

test('an email whose mailbox is no longer in the registry is refused for good, naming the known ones', async () => {
  const id = await arrive('billing', sampleEmail({ from: erika, subject: 'Mahnung', messageId: '<t-9@customer.example>' }));
  await stack.db.pool.query(`UPDATE emails SET mailbox_id = 'shop' WHERE id = ?`, [id]);
  await assert.rejects(h.run(id, h.activities.draftReply, { emailId: id, version: 1 }), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'UNKNOWN_MAILBOX');
    assert.match(err.message, /mailbox "shop" is not in the registry \(known: support, sales, billing\)/);
    return true;
  });
  // Fetching for a mailbox id the registry lacks stores nothing.
  const source = { kind: 'imap' as const, mailboxId: 'shop', mailbox: 'INBOX', uidValidity: 1, uid: 1 };
  await assert.rejects(h.run('email-x', h.activities.fetchEmail, { emailId: 'email-x', source }), { code: 'UNKNOWN_MAILBOX' });
  assert.equal(await h.deps.activities.messages.getEmail('email-x'), null);
});
