/**
 * Earned autonomy's activities with real MariaDB (a throwaway database): the verdict and each of
 * its reasons, a category that falls below its bar losing autonomy at once, the switch, a stop,
 * and an automatic send that approves exactly once however often it is retried. The workflow's
 * `approve` Update is a FAKE decisions port here (the workflow is the lead's; its validator's
 * draft-id binding is played by the fake: first decision wins, other drafts refused).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, test } from 'node:test';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createAutonomyActivities } from '../../src/autonomy/autonomy.activities';
import { createSendActivities } from '../../src/email/send/send.activities';
import { createMariaDbAttachmentStore } from '../../src/attachments/attachment-store.mariadb';
import { createMariaDbAuditLog } from '../../src/platform/audit-log.mariadb';
import { createMariaDbAutonomyStore } from '../../src/autonomy/autonomy-store.mariadb';
import { createMariaDbReplayEvidence } from '../../src/replay/replay-evidence.mariadb';
import { createMariaDbDraftStore } from '../../src/email/draft/draft-store.mariadb';
import { createMariaDbMessageStore } from '../../src/email/message-store.mariadb';
import { parseAutonomyPolicy, type AutonomyPolicy } from '../../src/autonomy/autonomy-policy';
import type { ApprovalOutcome, AutoApprover, StandingMove } from '../../src/autonomy/autonomy.port';
import { createMariaDbOperatingFigures } from '../../src/operations/operating-figures.mariadb';
import { createTestDatabase } from '../support/database';
import { wilsonInterval } from '../../src/platform/wilson-interval';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let seq = 0;

/** FAKE of the email workflow's approve Update: the first decision on the current draft wins. */
class FakeDecisionsPort implements AutoApprover {
  decided = new Map<string, { by: string; draftId: string }>();
  calls = 0;
  down = false;
  constructor(private readonly current: (emailId: string) => string | undefined) {}
  approve(emailId: string, input: { draftId: string; by: string }): Promise<ApprovalOutcome> {
    this.calls += 1;
    if (this.down) return Promise.resolve({ ok: false, refused: false, message: 'temporal unavailable' });
    const first = this.decided.get(emailId);
    if (first) return Promise.resolve({ ok: false, refused: true, message: `approve refused: approve by ${first.by} came first` });
    if (this.current(emailId) !== input.draftId)
      return Promise.resolve({ ok: false, refused: true, message: `approve refused: draft ${input.draftId} is not the current one` });
    this.decided.set(emailId, input);
    return Promise.resolve({ ok: true });
  }
  decision(emailId: string): Promise<{ by: string; draftId: string } | null> {
    return Promise.resolve(this.decided.get(emailId) ?? null);
  }
}

const POLICY = `
policy: support-autonomy
version: 3
mailboxes:
  support:
    categories: [shipping, opening_hours]
    neverAutomatic: [Garantiefall]
`;
const policy: AutonomyPolicy = parseAutonomyPolicy(POLICY, 'test', ['default', 'support']);

function harness(p: AutonomyPolicy | null = policy, withAttachments = true) {
  const store = createMariaDbAutonomyStore(db.pool, createMariaDbReplayEvidence(db.pool));
  const drafts = createMariaDbDraftStore(db.pool);
  const messages = createMariaDbMessageStore(db.pool);
  const audit = createMariaDbAuditLog(db.pool);
  const current = new Map<string, string>();
  const fake = new FakeDecisionsPort((id) => current.get(id));
  const attachments = withAttachments ? createMariaDbAttachmentStore(db.pool) : undefined;
  const acts = createAutonomyActivities({ autonomy: store, approver: fake, messages, drafts, audit, attachments, policy: p });
  const run = <A extends unknown[], R>(workflowId: string, fn: (...a: A) => Promise<R>, ...args: A): Promise<R> =>
    new MockActivityEnvironment({ workflowExecution: { workflowId, runId: randomUUID() }, activityId: '1', attempt: 1 }).run(fn, ...args);
  return { store, drafts, messages, audit, attachments, fake, current, acts, run };
}

/** Seeds `n` decided drafts of a category: `unchanged` of them approved unchanged, by people. */
async function seedRecord(mailbox: string, category: string, n: number, unchanged: number, by = 'anna'): Promise<void> {
  for (let i = 0; i < n; i += 1) {
    seq += 1;
    await db.pool.query(
      `INSERT INTO draft_outcomes (draft_id, email_id, outcome, mailbox_id, category, language, drafter, model, prompt_version, decided_by, decided_at)
       VALUES (?, ?, ?, ?, ?, 'de', 'openai', 'm', 'v1', ?, NOW(3) - INTERVAL ? SECOND)`,
      [`seed-${seq}:draft:1`, `seed-${seq}`, i < unchanged ? 'approved_unchanged' : 'light_edit', mailbox, category, by, 1000 + seq],
    );
  }
}

interface MailSpec {
  mailbox?: string;
  subject?: string;
  text?: string;
  body?: string;
  category?: string;
  confidence?: number;
  flags?: string[];
  drafter?: string;
}

async function mail(h: ReturnType<typeof harness>, spec: MailSpec = {}): Promise<{ emailId: string; draftId: string }> {
  seq += 1;
  const emailId = `email-auto-${seq}`;
  await db.pool.query(
    `INSERT INTO emails (id, source, status, mailbox_id, subject, text_body, from_address, from_name) VALUES (?, 'file', 'awaiting_approval', ?, ?, ?, ?, ?)`,
    [
      emailId,
      spec.mailbox ?? 'support',
      spec.subject ?? 'Lieferzeit',
      spec.text ?? 'Guten Tag, wie lange dauert die Lieferung nach Österreich? Danke, Eva',
      'eva@kunde.example',
      'Eva',
    ],
  );
  const d = await h.drafts.save({
    id: `${emailId}:draft:1`,
    emailId,
    version: 1,
    subject: 'Re: Lieferzeit',
    body: spec.body ?? 'Guten Tag,\n\ndie Lieferung nach Österreich dauert drei bis fünf Werktage.\n\nViele Grüße\nSupport',
    language: 'de',
    confidence: spec.confidence ?? 0.9,
    drafter: spec.drafter ?? 'openai',
    model: 'm',
    promptVersion: 'v1',
    contextIds: [],
    flags: spec.flags ?? [],
    category: spec.category ?? 'shipping',
    to: { address: 'eva@kunde.example', name: 'Eva' },
  });
  h.current.set(emailId, d.id);
  return { emailId, draftId: d.id };
}

async function events(emailId: string, type: string): Promise<Array<{ message: string; actor: string | null; details: string | null }>> {
  return (await db.pool.query('SELECT message, actor, details FROM audit_log WHERE email_id = ? AND event_type = ? ORDER BY id', [
    emailId,
    type,
  ])) as Array<{ message: string; actor: string | null; details: string | null }>;
}

before(async () => {
  db = await createTestDatabase('autonomy');
  await seedRecord('support', 'shipping', 60, 59);
  await seedRecord('support', 'opening_hours', 20, 20);
  await seedRecord('support', 'billing', 60, 60);
});
after(async () => {
  await db?.drop();
});
beforeEach(async () => {
  await createMariaDbAutonomyStore(db.pool, createMariaDbReplayEvidence(db.pool)).setSwitch(true, 'tester');
});

test('the switch is off after migration, and a qualifying draft then waits for a person', async () => {
  const fresh = await createTestDatabase('autonomyoff');
  try {
    const s = await createMariaDbAutonomyStore(fresh.pool, createMariaDbReplayEvidence(fresh.pool)).switchState();
    assert.deepEqual(s, { on: false, by: null, at: null });
  } finally {
    await fresh.drop();
  }
  const h = harness();
  await h.store.setSwitch(false, 'ops');
  const m = await mail(h);
  const v = await h.run(m.emailId, h.acts.autonomyVerdict, m);
  assert.equal(v.send, false);
  assert.deepEqual(v.reasons, ['autonomy is switched off']);
  assert.equal((await events(m.emailId, 'auto_send_withheld')).length, 1);
});

test('a qualifying draft: send after the grace period, a pending row and an audit row with the figures', async () => {
  const h = harness();
  const m = await mail(h);
  const v = await h.run(m.emailId, h.acts.autonomyVerdict, m);
  assert.equal(v.send, true, v.reasons.join('; '));
  assert.equal(v.policy, 'support-autonomy@3');
  assert.ok(Math.abs(v.graceMs - 10 * 60_000) < 2_000, String(v.graceMs));
  // The record is the last 200 reviewed: 59 of 60 unchanged, the 95 % interval's lower bound 0.911 clears 0.9.
  assert.deepEqual(v.figures, {
    category: 'shipping',
    reviewed: 60,
    unchanged: 59,
    share: 59 / 60,
    lower: wilsonInterval(59, 60).lower,
    minReviewed: 50,
    minShare: 0.9,
  });
  assert.ok(Math.abs(v.figures!.lower - 0.9114) < 0.001, String(v.figures!.lower));
  const p = await h.store.pending(m.draftId);
  assert.equal(p?.state, 'pending');
  assert.deepEqual(await h.store.listPending(m.emailId).then((l) => l.map((x) => x.draftId)), [m.draftId]);
  const [row] = await events(m.emailId, 'auto_send_pending');
  assert.equal(row?.actor, 'autonomy:support-autonomy@3');
  // A retried verdict keeps the first send time and writes the audit row once.
  const again = await h.run(m.emailId, h.acts.autonomyVerdict, m);
  assert.equal(again.send, true);
  assert.equal((await h.store.pending(m.draftId))?.sendAfter.getTime(), p?.sendAfter.getTime());
  assert.equal((await events(m.emailId, 'auto_send_pending')).length, 1);
});

test('every reason a draft waits for a person is named', async () => {
  const h = harness();
  const cases: Array<[MailSpec, RegExp]> = [
    [{ mailbox: 'default' }, /^mailbox default has no autonomy policy$/],
    [{ category: 'billing' }, /category "billing" is not listed/],
    [{ category: 'opening_hours' }, /category "opening_hours" is below its bar: only 20 reviewed drafts, 50 needed/],
    [{ flags: ['possible_prompt_injection'] }, /the draft is flagged: possible_prompt_injection/],
    [{ flags: ['reply_to_differs'] }, /the draft is flagged: reply_to_differs/],
    [{ flags: ['no_relevant_context'] }, /the draft is flagged: no_relevant_context/],
    [{ drafter: 'offline' }, /written by the offline drafter/],
    [{ confidence: 0.5 }, /confidence 0\.5 is below 0\.8/],
    [{ text: 'Ich möchte eine Rückerstattung für die Lieferung.' }, /the mail is about refund \("erstattung"\)/],
    [{ body: 'Ihr Passwort setzen Sie unter Konto zurück.' }, /the draft is about account_access \("Passwort"\)/],
    [{ text: 'Die Lieferung kostet 12,50 € extra?' }, /the mail is about money \("12,50 €"\)/],
    [{ text: 'Mein Anwalt meldet sich wegen der Lieferung.' }, /the mail is about legal/],
    [{ text: 'Das ist eine Frechheit, ich will eine Beschwerde einreichen.' }, /the mail is about complaint/],
    [{ text: 'Ist das ein Garantiefall?' }, /the mail is about extra:Garantiefall/],
  ];
  for (const [spec, reason] of cases) {
    const m = await mail(h, spec);
    const v = await h.run(m.emailId, h.acts.autonomyVerdict, m);
    assert.equal(v.send, false, JSON.stringify(spec));
    assert.ok(
      v.reasons.some((r) => reason.test(r)),
      `${JSON.stringify(spec)}: ${v.reasons.join('; ')}`,
    );
    assert.equal(await h.store.pending(m.draftId), null);
    const withheld = await events(m.emailId, 'auto_send_withheld');
    // Audited only for a listed category: the rest would be noise.
    const listed = (spec.mailbox ?? 'support') === 'support' && ['shipping', 'opening_hours'].includes(spec.category ?? 'shipping');
    assert.equal(withheld.length, listed ? 1 : 0, JSON.stringify(spec));
  }
  // Not the current draft, not awaiting approval, stopped.
  // (opening_hours: the redrafted outcome lands in a record no other test reads.)
  const stale = await mail(h, { category: 'opening_hours' });
  await h.drafts.save({ ...(await h.drafts.get(stale.draftId))!, id: `${stale.emailId}:draft:2`, version: 2 });
  await h.drafts.markStale(stale.emailId, 2);
  const v1 = await h.run(stale.emailId, h.acts.autonomyVerdict, stale);
  assert.ok(v1.reasons.includes('the draft is stale, not awaiting approval'), v1.reasons.join('; '));
  assert.ok(v1.reasons.some((r) => /draft 1 is not the current one \(draft 2 exists\)/.test(r)));
  const done = await mail(h);
  await db.pool.query("UPDATE emails SET status = 'approved' WHERE id = ?", [done.emailId]);
  assert.ok((await h.run(done.emailId, h.acts.autonomyVerdict, done)).reasons.includes('the email is approved, not awaiting approval'));
  const stopped = await mail(h);
  assert.deepEqual(await h.acts.stopAutoSend({ ...stopped, by: 'bea' }), { stopped: true });
  assert.ok((await h.run(stopped.emailId, h.acts.autonomyVerdict, stopped)).reasons.includes('the automatic send was stopped by bea'));
  // No file: off everywhere, no audit row.
  const off = harness(null);
  const none = await mail(off);
  assert.deepEqual((await off.run(none.emailId, off.acts.autonomyVerdict, none)).reasons, ['mailbox support has no autonomy policy']);
});

interface Attached {
  filename: string;
  type: string;
  disposition?: string;
  contentId?: string;
  /** Stored with this text state; absent: listed by the parser, not stored. */
  state?: 'extracted' | 'encrypted' | 'unreadable' | 'skipped';
  note?: string;
  text?: string;
}

/** A qualifying mail with attachments as the parse and index steps leave them. */
async function mailWith(h: ReturnType<typeof harness>, files: Attached[]): Promise<{ emailId: string; draftId: string }> {
  const m = await mail(h);
  const meta = files.map((f) => ({ filename: f.filename, contentType: f.type, size: 10, contentId: f.contentId ?? null }));
  await db.pool.query('UPDATE emails SET attachments = ? WHERE id = ?', [JSON.stringify(meta), m.emailId]);
  for (const [partIndex, f] of files.entries()) {
    if (!f.state) continue;
    const content = Buffer.from(f.text ?? 'x');
    const file = {
      partIndex,
      filename: f.filename,
      declaredType: f.type,
      detectedType: f.type,
      disposition: f.disposition ?? 'attachment',
    };
    await h.attachments!.save(m.emailId, { ...file, contentId: f.contentId ?? null, content });
    const pages = f.state === 'extracted' ? [{ page: 1, text: f.text ?? '' }] : [];
    await h.attachments!.saveText(m.emailId, partIndex, f.state, f.note ?? null, pages);
  }
  return m;
}

test('what the customer attached and no draft could read keeps the mail for a person; a signature logo does not', async () => {
  const h = harness();
  const logo: Attached = {
    filename: 'logo.png',
    type: 'image/png',
    disposition: 'inline',
    contentId: 'logo@kunde',
    state: 'skipped',
    note: 'image/png: not a text format',
  };
  const note: Attached = {
    filename: 'lieferschein.txt',
    type: 'text/plain',
    state: 'extracted',
    text: 'Lieferschein 4711: zwei Kartons nach Österreich',
  };
  const fine = await mailWith(h, [
    logo,
    note,
    { filename: 'leer.txt', type: 'text/plain', state: 'skipped', note: 'empty file (0 bytes)' },
  ]);
  const ok = await h.run(fine.emailId, h.acts.autonomyVerdict, fine);
  assert.equal(ok.send, true, ok.reasons.join('; '));
  const cases: Array<[Attached[], RegExp]> = [
    [
      [{ filename: 'vertrag.pdf', type: 'application/pdf', state: 'encrypted', note: 'password-protected PDF' }],
      /could not read: vertrag\.pdf \(encrypted\)/,
    ],
    [
      [{ filename: 'kaputt.docx', type: 'application/zip', state: 'unreadable', note: 'zip bomb' }],
      /could not read: kaputt\.docx \(unreadable\)/,
    ],
    [
      [{ filename: 'screenshot.png', type: 'image/png', state: 'skipped', note: 'image/png: not a text format' }],
      /could not read: screenshot\.png \(skipped\)/,
    ],
    [
      [{ filename: 'lang.pdf', type: 'application/pdf', state: 'extracted', note: 'pages 51-400 not read', text: 'Seite 1' }],
      /lang\.pdf \(read in part\)/,
    ],
    [[note, { filename: 'gross.pdf', type: 'application/pdf' }], /1 of the mail's 2 attachments were not stored/],
    [
      [{ filename: 'rechnung.pdf', type: 'application/pdf', state: 'extracted', text: 'Rechnungsbetrag 149,00 EUR' }],
      /the attachment text is about money \("149,00 EUR"\)/,
    ],
  ];
  for (const [files, reason] of cases) {
    const m = await mailWith(h, files);
    const v = await h.run(m.emailId, h.acts.autonomyVerdict, m);
    assert.equal(v.send, false, files.map((f) => f.filename).join());
    assert.ok(
      v.reasons.some((r) => reason.test(r)),
      `${files.map((f) => f.filename).join()}: ${v.reasons.join('; ')}`,
    );
  }
  // A worker without the attachment store cannot know what was read: never alone.
  const blind = harness(policy, false);
  const m = await mailWith(h, [note]);
  const v = await blind.run(m.emailId, blind.acts.autonomyVerdict, m);
  assert.ok(v.reasons.includes('the mail has 1 attachment(s) this worker does not read'), v.reasons.join('; '));
});

test('autoSend approves once as autonomy:<policy>; retries never approve twice; the outcome is recorded but not counted', async () => {
  const h = harness();
  const m = await mail(h);
  assert.equal((await h.run(m.emailId, h.acts.autonomyVerdict, m)).send, true);
  const first = await h.run(m.emailId, h.acts.autoSend, m);
  assert.deepEqual(first, { sent: true, reason: 'approved by autonomy:support-autonomy@3' });
  assert.deepEqual(h.fake.decided.get(m.emailId), { by: 'autonomy:support-autonomy@3', draftId: m.draftId });
  const again = await h.run(m.emailId, h.acts.autoSend, m);
  assert.equal(again.sent, true);
  assert.equal(h.fake.calls, 1, 'a retried activity does not send the Update again');
  const [row] = await events(m.emailId, 'auto_sent');
  assert.equal(row?.actor, 'autonomy:support-autonomy@3');
  const details = JSON.parse(row!.details!) as { policy: string; figures: { reviewed: number; unchanged: number } };
  assert.equal(details.policy, 'support-autonomy@3');
  assert.deepEqual([details.figures.reviewed, details.figures.unchanged], [60, 59]);
  assert.equal((await events(m.emailId, 'auto_sent')).length, 1);
  // The workflow records the decision as for a person: the outcome row names the policy...
  const send = createSendActivities({ drafts: h.drafts, audit: h.audit } as unknown as Parameters<typeof createSendActivities>[0]);
  const before = await h.store.record('support', 'shipping', 1000);
  await h.run(m.emailId, send.recordDecision, { ...m, decision: { kind: 'approve', by: 'autonomy:support-autonomy@3' } });
  const [outcome] = (await db.pool.query('SELECT outcome, decided_by FROM draft_outcomes WHERE draft_id = ?', [m.draftId])) as Array<{
    outcome: string;
    decided_by: string;
  }>;
  assert.deepEqual({ ...outcome }, { outcome: 'approved_unchanged', decided_by: 'autonomy:support-autonomy@3' });
  // ...and it does not earn the category anything: no person judged it.
  assert.deepEqual(await h.store.record('support', 'shipping', 1000), before);
});

test('a retried autoSend after the Update went through, and Temporal down, approve exactly once', async () => {
  const h = harness();
  const m = await mail(h);
  await h.run(m.emailId, h.acts.autonomyVerdict, m);
  h.fake.down = true;
  await assert.rejects(h.run(m.emailId, h.acts.autoSend, m), /not delivered: temporal unavailable/);
  assert.equal((await h.store.pending(m.draftId))?.state, 'sent', 'claimed before the Update');
  h.fake.down = false;
  assert.equal((await h.run(m.emailId, h.acts.autoSend, m)).sent, true);
  assert.equal(h.fake.decided.size, 1);
  // The Update went through but the activity died before it knew: the retry finds the decision.
  const m2 = await mail(h);
  await h.run(m2.emailId, h.acts.autonomyVerdict, m2);
  h.fake.decided.set(m2.emailId, { by: 'autonomy:support-autonomy@3', draftId: m2.draftId });
  await h.store.settle(m2.draftId, 'sent', 'approving');
  const calls = h.fake.calls;
  assert.equal((await h.run(m2.emailId, h.acts.autoSend, m2)).sent, true);
  assert.equal(h.fake.calls, calls);
});

test('a person who acted during the grace period wins: the automatic approval is refused and skipped', async () => {
  const h = harness();
  const m = await mail(h);
  await h.run(m.emailId, h.acts.autonomyVerdict, m);
  h.fake.decided.set(m.emailId, { by: 'anna', draftId: m.draftId });
  const r = await h.run(m.emailId, h.acts.autoSend, m);
  assert.equal(r.sent, false);
  assert.match(r.reason, /refused the automatic approval: approve refused: approve by anna came first/);
  assert.equal((await h.store.pending(m.draftId))?.state, 'skipped');
  assert.equal((await events(m.emailId, 'auto_send_skipped')).length, 1);
});

test('a category that falls below its bar during the grace period loses autonomy at once', async () => {
  const h = harness();
  await seedRecord('support', 'returns-info', 50, 50);
  const p: AutonomyPolicy = { ...policy, mailboxes: { support: { ...policy.mailboxes.support!, categories: ['returns-info'] } } };
  const h2 = {
    ...h,
    acts: createAutonomyActivities({
      autonomy: h.store,
      approver: h.fake,
      messages: h.messages,
      drafts: h.drafts,
      audit: h.audit,
      policy: p,
    }),
  };
  const m = await mail(h2, { category: 'returns-info' });
  assert.equal((await h.run(m.emailId, h2.acts.autonomyVerdict, m)).send, true);
  // Three heavy edits by people: 50 of the last 53 unchanged, 94.3 %, but the lower bound 84.6 %.
  for (let i = 0; i < 3; i += 1) {
    seq += 1;
    await db.pool.query(
      `INSERT INTO draft_outcomes (draft_id, email_id, outcome, mailbox_id, category, language, drafter, model, prompt_version, decided_by, decided_at)
       VALUES (?, ?, 'heavy_edit', 'support', 'returns-info', 'de', 'openai', 'm', 'v1', 'anna', NOW(3))`,
      [`late-${seq}:draft:1`, `late-${seq}`],
    );
  }
  const r = await h.run(m.emailId, h2.acts.autoSend, m);
  assert.equal(r.sent, false);
  assert.match(
    r.reason,
    /category "returns-info" is below its bar: 50 of 53 approved unchanged \(94\.3 %; 95 % interval 84\.6 %–98\.1 %\): the lower bound is below 90\.0 %/,
  );
  assert.equal(h.fake.decided.has(m.emailId), false);
  assert.equal((await h.store.pending(m.draftId))?.state, 'skipped');
  // Demoted once, with the figures, whichever verdict saw it first; the standing keeps when.
  const demoted = await events(m.emailId, 'autonomy_demoted');
  assert.equal(demoted.length, 1);
  assert.match(
    demoted[0]!.message,
    /category "returns-info" of mailbox support no longer qualifies .*50 of the last 53 approved unchanged, lower bound 84\.6 % \(bar 90\.0 %\)/,
  );
  const standing = (await h.store.standings()).find((x) => x.category === 'returns-info');
  assert.equal(standing?.qualified, false);
  assert.ok(standing?.lastDemotedAt instanceof Date);
  // The next draft of that category is withheld at once too, and no second demotion is written.
  const next = await mail(h2, { category: 'returns-info' });
  assert.equal((await h.run(next.emailId, h2.acts.autonomyVerdict, next)).send, false);
  assert.equal((await auditRows('autonomy_demoted', 'returns-info')).length, 1);
  // 40 more unchanged: 90 of 93, lower bound 90.9 %: promoted again, audited once.
  await seedRecordNow('support', 'returns-info', 40);
  const back = await mail(h2, { category: 'returns-info' });
  assert.equal((await h.run(back.emailId, h2.acts.autonomyVerdict, back)).send, true);
  assert.equal((await auditRows('autonomy_promoted', 'returns-info')).length, 1);
  assert.equal((await h.store.standings()).find((x) => x.category === 'returns-info')?.qualified, true);
});

/** Audit rows of one event about one category, whichever email they were written with. */
async function auditRows(eventType: string, category: string): Promise<Array<{ message: string }>> {
  return (await db.pool.query("SELECT message FROM audit_log WHERE event_type = ? AND JSON_VALUE(details, '$.category') = ? ORDER BY id", [
    eventType,
    category,
  ])) as Array<{ message: string }>;
}

/** `n` drafts approved unchanged by people just now (the newest of the record). */
async function seedRecordNow(mailbox: string, category: string, n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) {
    seq += 1;
    await db.pool.query(
      `INSERT INTO draft_outcomes (draft_id, email_id, outcome, mailbox_id, category, language, drafter, model, prompt_version, decided_by, decided_at)
       VALUES (?, ?, 'approved_unchanged', ?, ?, 'de', 'openai', 'm', 'v1', 'anna', NOW(3))`,
      [`now-${seq}:draft:1`, `now-${seq}`, mailbox, category],
    );
  }
}

test('switch off or a stop during the grace period: nothing is approved', async () => {
  const h = harness();
  const a = await mail(h);
  await h.run(a.emailId, h.acts.autonomyVerdict, a);
  await h.store.setSwitch(false, 'ops');
  assert.deepEqual(await h.run(a.emailId, h.acts.autoSend, a), { sent: false, reason: 'autonomy is switched off' });
  await h.store.setSwitch(true, 'ops');
  const b = await mail(h);
  await h.run(b.emailId, h.acts.autonomyVerdict, b);
  assert.deepEqual(await h.acts.stopAutoSend({ ...b, by: 'bea' }), { stopped: true });
  assert.deepEqual(await h.run(b.emailId, h.acts.autoSend, b), { sent: false, reason: 'stopped by bea' });
  assert.equal(h.fake.decided.size, 0);
  const [row] = await events(b.emailId, 'auto_send_stopped');
  assert.equal(row?.actor, 'bea');
  // A stop after the send says so.
  const c = await mail(h);
  await h.run(c.emailId, h.acts.autonomyVerdict, c);
  await h.run(c.emailId, h.acts.autoSend, c);
  assert.deepEqual(await h.acts.stopAutoSend({ ...c, by: 'bea' }), { stopped: false });
  // Hostile input is refused with a clear error, nothing written.
  await assert.rejects(h.acts.stopAutoSend({ ...c, by: '' }), /by must be text of 1 to 191 characters/);
  await assert.rejects(h.acts.stopAutoSend({ ...c, by: 'x'.repeat(500) }), /by must be text/);
});

test('a demotion and its audit row are one transaction: a failed audit write leaves the standing, the retry writes both once', async () => {
  const store = createMariaDbAutonomyStore(db.pool, createMariaDbReplayEvidence(db.pool));
  const category = `atomic-${randomUUID().slice(0, 8)}`;
  const standing = (qualified: boolean) => ({ mailboxId: 'default', category, qualified, reviewed: 40, unchanged: 30, lower: 0.6 });
  const entry = ({ change, version }: StandingMove) => ({
    emailId: null,
    correlationId: 'atomic-test',
    eventType: change === 'demoted' ? ('autonomy_demoted' as const) : ('autonomy_promoted' as const),
    message: `${category} ${change}`,
    details: { category },
    eventKey: `atomic-test:${change}:${category}:v${version}`,
  });
  assert.equal(await store.noteStanding(standing(true), entry), null, 'the first judgement is no change');
  await assert.rejects(
    store.noteStanding(standing(false), () => {
      throw new Error('the audit log is down');
    }),
    /audit log is down/,
  );
  const qualified = async () =>
    ((await db.pool.query('SELECT qualified FROM autonomy_standing WHERE category = ?', [category])) as Array<{ qualified: number }>)[0]!
      .qualified;
  assert.equal(Number(await qualified()), 1, 'the standing did not move without its audit row');
  assert.equal(await store.noteStanding(standing(false), entry), 'demoted', 'the retry demotes');
  assert.equal(await store.noteStanding(standing(false), entry), null, 'a second retry changes nothing');
  assert.equal(Number(await qualified()), 0);
  assert.equal((await auditRows('autonomy_demoted', category)).length, 1, 'the demotion is audited once');
});

test('the audit log refuses the demotion row once: the retried verdict demotes and writes it once, the counter counts one, a later verdict writes nothing', async () => {
  const category = `retried-${randomUUID().slice(0, 8)}`;
  await seedRecord('support', category, 60, 60);
  const h = harness({ ...policy, mailboxes: { support: { ...policy.mailboxes.support!, categories: [category] } } });
  const first = await mail(h, { category });
  assert.equal((await h.run(first.emailId, h.acts.autonomyVerdict, first)).send, true, 'the category qualifies');
  // A real refusal by the database, not a stand-in: a trigger refuses the next autonomy_demoted row
  // of this category. Its budget lives in a MyISAM table, which the refused statement's rollback
  // cannot undo, so exactly one insert is refused.
  await db.pool.query('CREATE TABLE audit_refusals (n INT NOT NULL) ENGINE = MyISAM');
  await db.pool.query('INSERT INTO audit_refusals VALUES (1)');
  await db.pool.query(
    `CREATE TRIGGER audit_refuses_once BEFORE INSERT ON audit_log FOR EACH ROW
     IF NEW.event_type = 'autonomy_demoted' AND JSON_VALUE(NEW.details, '$.category') = '${category}'
        AND (SELECT n FROM audit_refusals) > 0 THEN
       UPDATE audit_refusals SET n = n - 1;
       SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected: the audit log refuses this row';
     END IF`,
  );
  try {
    const figures = createMariaDbOperatingFigures(db.pool);
    const from = await figures.now();
    await seedHeavyEdits(category, 20);
    const m = await mail(h, { category });
    await assert.rejects(h.run(m.emailId, h.acts.autonomyVerdict, m), /the audit log refuses this row/);
    const standing = async () => (await h.store.standings()).find((x) => x.category === category);
    assert.equal((await standing())?.qualified, true, 'the refused row took the demotion with it');
    assert.equal((await auditRows('autonomy_demoted', category)).length, 0);
    // Temporal's retry of the step: the same verdict again.
    assert.equal((await h.run(m.emailId, h.acts.autonomyVerdict, m)).send, false);
    assert.equal((await standing())?.qualified, false, 'the retry demoted the category');
    const rows = await auditRows('autonomy_demoted', category);
    assert.equal(rows.length, 1, 'one demotion row');
    // A retry after the commit (the result lost on its way back) finds the standing moved: nothing new.
    assert.equal((await h.run(m.emailId, h.acts.autonomyVerdict, m)).send, false);
    // The next draft's verdict finds the category demoted already: no second row.
    const next = await mail(h, { category });
    assert.equal((await h.run(next.emailId, h.acts.autonomyVerdict, next)).send, false);
    assert.equal((await auditRows('autonomy_demoted', category)).length, 1, 'still one demotion row');
    const [key] = (await db.pool.query(
      "SELECT event_key FROM audit_log WHERE event_type = 'autonomy_demoted' AND JSON_VALUE(details, '$.category') = ?",
      [category],
    )) as Array<{ event_key: string }>;
    assert.equal(key?.event_key, `autonomy_demoted:support:${category}:v1`, 'keyed by the change, not by the verdict');
    // The counter behind email_rag_autonomy_demotions_total and its alert reads these rows.
    const counted = await figures.eventsBetween(from, await figures.now());
    assert.deepEqual(counted.autonomyDemotions, [{ mailbox: 'support', count: 1 }]);
    // Promoted again and demoted again by the same email's verdicts: another change, another row.
    await seedRecordNow('support', category, 200);
    await h.run(m.emailId, h.acts.autonomyVerdict, m);
    assert.equal((await standing())?.qualified, true, 'promoted');
    await seedHeavyEdits(category, 30);
    await h.run(m.emailId, h.acts.autonomyVerdict, m);
    assert.equal((await standing())?.qualified, false, 'demoted again');
    assert.equal((await auditRows('autonomy_demoted', category)).length, 2, 'the second demotion has its own row');
  } finally {
    await db.pool.query('DROP TRIGGER IF EXISTS audit_refuses_once');
  }
});

/** `n` drafts of a support category heavily edited by people just now. */
async function seedHeavyEdits(category: string, n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) {
    seq += 1;
    await db.pool.query(
      `INSERT INTO draft_outcomes (draft_id, email_id, outcome, mailbox_id, category, language, drafter, model, prompt_version, decided_by, decided_at)
       VALUES (?, ?, 'heavy_edit', 'support', ?, 'de', 'openai', 'm', 'v1', 'anna', NOW(3))`,
      [`heavy-${seq}:draft:1`, `heavy-${seq}`, category],
    );
  }
}
