/**
 * Cases in the activities, against real Dovecot and MariaDB: a correspondent's mails share a case
 * while it is open, whatever the subject; a new mail makes the case's waiting draft stale; a draft
 * sees the case's other open mails; the case's status follows its mails. Temporal is not running
 * here: the signals to workflows go to a RECORDING DOUBLE of the signal ports.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sampleEmail, type TestStack } from '../support/stack';
import { useActivityStack, type activityHarness, type inboxDelivery } from './support';

let stack: TestStack;
let h: ReturnType<typeof activityHarness>;
let deliver: ReturnType<typeof inboxDelivery>;
const told: Array<{ to: string; what: string; payload?: unknown }> = [];

useActivityStack((s) => {
  ({ stack, h, deliver } = s);
  // Recording doubles of the Temporal signal ports (no Temporal server in this file).
  h.deps.activities.signals = {
    requestRedraft: async (to, by) => (told.push({ to, what: `redraft:${by}` }), true),
    requestResend: async () => true,
    answeredElsewhere: async () => true,
  };
  const c = h.deps.activities.case;
  assert.ok(c, 'cases are on by default');
  c.caseSignals = {
    notify: async (to, what, payload) => void told.push({ to, what, payload }),
    wakeClock: async () => void told.push({ to: 'case-clock', what: 'wake' }),
    caseReplySent: async () => true,
  };
});

async function intake(raw: string, draft = true) {
  const input = await deliver(raw);
  await h.run(input.emailId, h.activities.fetchEmail, input);
  await h.run(input.emailId, h.activities.parseEmail, { emailId: input.emailId });
  await h.run(input.emailId, h.activities.indexEmail, { emailId: input.emailId });
  const view = draft
    ? await h.run(input.emailId, h.activities.draftReply, { emailId: input.emailId, version: 1, record: { seq: 1 } })
    : null;
  return { emailId: input.emailId, draft: view };
}

const caseOf = async (emailId: string) =>
  ((await stack.db.pool.query('SELECT case_id FROM emails WHERE id = ?', [emailId])) as Array<{ case_id: string | null }>)[0]?.case_id ??
  null;
const caseRow = async (caseId: string) =>
  (
    (await stack.db.pool.query('SELECT status, correspondent, email_count, waiting_since, priority FROM cases WHERE id = ?', [
      caseId,
    ])) as Array<{
      status: string;
      correspondent: string;
      email_count: number;
      waiting_since: Date | null;
      priority: string;
    }>
  )[0];

test("a correspondent's second mail joins the open case whatever its subject; the waiting draft goes stale; the new draft sees the first mail", async () => {
  told.length = 0;
  const first = await intake(sampleEmail({ from: 'Jana Roth <jana.roth@kunde.example>', subject: 'Rechnung 118 doppelt abgebucht' }));
  const caseId = await caseOf(first.emailId);
  assert.ok(caseId?.startsWith('case-'));
  // No automatic send, no summary due: the case needs no workflow. Its deadline is planned at
  // once, and the case clock, which had nothing planned, is woken for it.
  assert.deepEqual(
    told.filter((t) => t.to === caseId),
    [],
    'a one-mail case without an automatic send starts no case workflow',
  );
  assert.ok(
    told.some((t) => t.to === 'case-clock' && t.what === 'wake'),
    'the case clock is woken for the first deadline it has',
  );
  const planned = (await stack.db.pool.query('SELECT due_at, remind_at FROM cases WHERE id = ?', [caseId])) as Array<{
    due_at: Date | null;
    remind_at: Date | null;
  }>;
  assert.ok(planned[0]?.due_at && planned[0].remind_at, 'the deadline is planned when the mail joins');

  told.length = 0;
  const second = await intake(
    sampleEmail({
      from: 'Jana Roth <JANA.ROTH@kunde.example>',
      subject: 'Neue Lieferadresse',
      body: 'Bitte liefern Sie ab sofort an die Lindenstraße 4.',
    }),
  );
  assert.equal(await caseOf(second.emailId), caseId, 'same correspondent (address case ignored), open case: same case');
  assert.deepEqual(
    told.filter((t) => t.to === caseId || t.to === 'case-clock'),
    [],
    'the second mail changes no deadline (the first still waits) and starts no workflow',
  );
  assert.deepEqual(
    told.filter((t) => t.what.startsWith('redraft')).map((t) => t.to),
    [first.emailId],
    'the first draft was written without the second mail: it is stale',
  );
  const stale = (await stack.db.pool.query(`SELECT message FROM audit_log WHERE email_id = ? AND event_type = 'draft_stale'`, [
    first.emailId,
  ])) as Array<{
    message: string;
  }>;
  assert.match(stale[0]?.message ?? '', /same case/);
  const ctx = (await stack.db.pool.query('SELECT context_ids FROM drafts WHERE id = ?', [second.draft?.draftId])) as Array<{
    context_ids: string;
  }>;
  assert.ok(JSON.parse(ctx[0]!.context_ids).includes(first.emailId), "the second draft's context holds the first mail");
  const row = await caseRow(caseId!);
  assert.equal(row?.status, 'open');
  assert.equal(Number(row?.email_count), 2);
  assert.equal(row?.correspondent, 'jana.roth@kunde.example');
  const events = (await stack.db.pool.query('SELECT event_type FROM case_events WHERE case_id = ? ORDER BY id', [caseId])) as Array<{
    event_type: string;
  }>;
  assert.deepEqual(
    events.map((e) => e.event_type),
    ['case_opened', 'case_deadline_set', 'case_joined'],
  );
});

test('another correspondent gets a case of their own; a retried index step keeps the case it joined', async () => {
  const a = await intake(sampleEmail({ from: 'max@firma-a.example', subject: 'Frage zur Lieferung' }), false);
  const b = await intake(sampleEmail({ from: 'max@firma-b.example', subject: 'Frage zur Lieferung' }), false);
  const ca = await caseOf(a.emailId);
  assert.notEqual(ca, await caseOf(b.emailId));
  await h.run(a.emailId, h.activities.indexEmail, { emailId: a.emailId });
  assert.equal(await caseOf(a.emailId), ca);
  const n = (await stack.db.pool.query('SELECT COUNT(*) AS n FROM case_events WHERE case_id = ?', [ca])) as Array<{ n: bigint }>;
  assert.equal(Number(n[0]!.n), 2, 'opened and its deadline set, each once: the retry adds nothing');
});

test('a case follows its mails: open while one waits, closed when nothing was answered, waiting for the customer after a reply, and a quiet case closes', async () => {
  const m = await intake(sampleEmail({ from: 'lea@kunde-c.example', subject: 'Kündigung zum Monatsende' }));
  const caseId = (await caseOf(m.emailId))!;
  assert.ok((await caseRow(caseId))?.waiting_since, 'the clock runs from the unanswered mail');
  await h.run(m.emailId, h.activities.recordStatus, { emailId: m.emailId, status: 'rejected', reason: 'test', seq: 5 });
  assert.equal((await caseRow(caseId))?.status, 'closed', 'nothing left to answer and no reply: closed');

  const n = await intake(sampleEmail({ from: 'tom@kunde-d.example', subject: 'Passwort' }));
  const caseN = (await caseOf(n.emailId))!;
  // A reply went out for it (as the send step records it).
  await stack.db.pool.query(
    `INSERT INTO send_attempts (draft_id, email_id, status, message_id, attempts, sent_at) VALUES (?, ?, 'sent', '<r@x>', 1, NOW(3) - INTERVAL 20 DAY)`,
    [n.draft?.draftId, n.emailId],
  );
  await h.run(n.emailId, h.activities.recordStatus, { emailId: n.emailId, status: 'sent', reason: 'test', seq: 6 });
  const after = await caseRow(caseN);
  assert.equal(after?.status, 'waiting_for_customer');
  assert.equal(after?.waiting_since, null, 'the clock is paused while we wait for the customer');
  const state = await h.run(caseN, h.activities.caseState, { caseId: caseN });
  assert.ok(state.closeAt && Date.parse(state.closeAt) < Date.now(), 'the reply is older than the 14-day window');
  const clockSees = async () => (await h.run('case-clock', h.activities.caseClockDue, { limit: 50 })).due.filter((d) => d.caseId === caseN);
  assert.deepEqual(
    await clockSees(),
    [{ caseId: caseN, kind: 'close', dueAt: null }],
    'the case clock finds the quiet case (and no deadline of it)',
  );
  assert.deepEqual(await h.run(caseN, h.activities.closeQuietCase, { caseId: caseN }), { closed: true });
  assert.equal((await caseRow(caseN))?.status, 'closed');
  assert.deepEqual(await clockSees(), [], 'closed: nothing of it is due any more');

  // After the case closed, the same correspondent's new mail opens a new case.
  const later = await intake(sampleEmail({ from: 'tom@kunde-d.example', subject: 'Noch eine Frage' }), false);
  assert.notEqual(await caseOf(later.emailId), caseN);
});

test('imported history opens no case; hostile names and subjects are stored within bounds', async () => {
  const raw = sampleEmail({ from: `"${'Ä'.repeat(400)}" <weird+tag@kunde-e.example>`, subject: `${'Ü'.repeat(2000)}` });
  const m = await intake(raw, false);
  const caseId = (await caseOf(m.emailId))!;
  const row = (await stack.db.pool.query('SELECT CHAR_LENGTH(subject) AS s, CHAR_LENGTH(correspondent_name) AS n FROM cases WHERE id = ?', [
    caseId,
  ])) as Array<{
    s: number;
    n: number;
  }>;
  assert.ok(row[0]!.s <= 998 && row[0]!.n <= 255);
  await stack.db.pool.query('UPDATE emails SET history_only = 1, case_id = NULL WHERE id = ?', [m.emailId]);
  await h.run(m.emailId, h.activities.indexEmail, { emailId: m.emailId });
  assert.equal(await caseOf(m.emailId), null);
});
