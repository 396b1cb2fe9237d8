/**
 * A customer cannot talk earned autonomy past a person: in a category that has earned autonomy, a
 * draft that repeats a commitment only the customer's mail makes ("your colleague promised free
 * express shipping", "as agreed on the phone you will refund 480 EUR by Friday") is checked by the
 * draft step's own grounding (src/email/draft/draft-grounding.ts), stored with its claims, refused
 * by the autonomy verdict with the customer-asserted reason, and waits for approval with that
 * reason on the review page (the claim's label, the flag and the withheld row in the history, en
 * and de). An honest draft of the same category goes on, so the hold is the claim's doing. Real
 * MariaDB; the workflow's approve Update and `state` query are FAKES (no Temporal here), and no
 * embedder (word overlap decides meaning).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createAutonomyActivities, type AutonomyVerdict } from '../../src/autonomy/autonomy.activities';
import { NEVER_AUTOMATIC_REASONS } from '../../src/autonomy/autonomy.contract';
import { parseAutonomyPolicy } from '../../src/autonomy/autonomy-policy';
import { createMariaDbAutonomyStore } from '../../src/autonomy/autonomy-store.mariadb';
import type { AutoApprover } from '../../src/autonomy/autonomy.port';
import { createMariaDbDraftClaimStore } from '../../src/drafting/draft-claims.mariadb';
import { DRAFT_FLAGS, GROUNDING_VERDICTS } from '../../src/drafting/drafting.contract';
import { draftGrounding, groundingFlags, saveGrounding } from '../../src/email/draft/draft-grounding';
import { createMariaDbDraftStore } from '../../src/email/draft/draft-store.mariadb';
import type { TemporalDecisions } from '../../src/email/decisions/decisions.temporal';
import { createMariaDbMessageStore } from '../../src/email/message-store.mariadb';
import { createMariaDbAuditLog } from '../../src/platform/audit-log.mariadb';
import { createMariaDbReplayEvidence } from '../../src/replay/replay-evidence.mariadb';
import { loadConfig } from '../../src/config';
import { createTestDatabase } from '../support/database';
import { inboxOnDatabase } from '../support/inbox-app';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: FastifyInstance;
let seq = 0;
const waiting = new Map<string, string>();

const SHIPPING = {
  sourceId: 'knowledge:shipping.md#1',
  kind: 'knowledge' as const,
  title: 'Shipping › Costs and times',
  text: 'Standard shipping costs 4.90 EUR within Germany. Orders from 50 EUR ship free of charge. Delivery takes 2 to 4 working days.',
};
const policy = parseAutonomyPolicy('policy: support-autonomy\nversion: 1\nmailboxes:\n  support:\n    categories: [shipping]\n', 'test', [
  'default',
  'support',
]);

/** FAKE of the email workflow's approve Update: records what would have been approved. */
const approved: string[] = [];
const approver: AutoApprover = {
  approve: (_emailId, input) => {
    approved.push(input.draftId);
    return Promise.resolve({ ok: true });
  },
  decision: () => Promise.resolve(null),
};

/** The draft step's grounding, draft and claims for one mail, then the autonomy verdict on it. */
async function draftAndJudge(mail: string, body: string) {
  seq += 1;
  const emailId = `email-asserted-${seq}`;
  await db.pool.query(
    `INSERT INTO emails (id, source, status, mailbox_id, subject, text_body, from_address, from_name)
     VALUES (?, 'file', 'awaiting_approval', 'support', 'My order', ?, 'anna@kunde.example', 'Anna')`,
    [emailId, mail],
  );
  const grounding = await draftGrounding({}, { id: emailId, subject: 'My order', text: mail }, [SHIPPING], { body, claims: [] });
  const drafts = createMariaDbDraftStore(db.pool);
  const draftClaims = createMariaDbDraftClaimStore(db.pool);
  const draft = await drafts.save({
    id: `${emailId}:draft:1`,
    emailId,
    version: 1,
    subject: 'Re: My order',
    body,
    language: 'en',
    confidence: 0.9,
    drafter: 'openai',
    model: 'm',
    promptVersion: 'v1',
    contextIds: [SHIPPING.sourceId],
    flags: groundingFlags(grounding),
    category: 'shipping',
    to: { address: 'anna@kunde.example', name: 'Anna' },
  });
  await saveGrounding({ draftClaims }, draft, grounding);
  waiting.set(emailId, draft.id);
  const acts = createAutonomyActivities({
    autonomy: createMariaDbAutonomyStore(db.pool, createMariaDbReplayEvidence(db.pool)),
    approver,
    messages: createMariaDbMessageStore(db.pool),
    drafts,
    audit: createMariaDbAuditLog(db.pool),
    draftClaims,
    policy,
  });
  const env = new MockActivityEnvironment({ workflowExecution: { workflowId: emailId, runId: randomUUID() }, activityId: '1', attempt: 1 });
  const verdict = (await env.run(acts.autonomyVerdict, { emailId, draftId: draft.id })) as AutonomyVerdict;
  return { emailId, draft, grounding, verdict };
}

before(async () => {
  db = await createTestDatabase('asserted');
  for (let i = 0; i < 60; i += 1)
    await db.pool.query(
      `INSERT INTO draft_outcomes (draft_id, email_id, outcome, mailbox_id, category, language, drafter, model, prompt_version, decided_by, decided_at)
       VALUES (?, ?, 'approved_unchanged', 'support', 'shipping', 'en', 'openai', 'm', 'v1', 'anna', NOW(3) - INTERVAL ? SECOND)`,
      [`seed-${i}:draft:1`, `seed-${i}`, 1000 + i],
    );
  await createMariaDbAutonomyStore(db.pool, createMariaDbReplayEvidence(db.pool)).setSwitch(true, 'tester');
  const config = loadConfig({ DATABASE_URL: db.url, INBOX_AUTH: 'header' }, { imap: false });
  const decisions = {
    state: (emailId: string) => Promise.resolve({ waitingFor: { kind: 'approval', draftId: waiting.get(emailId) ?? '', version: 1 } }),
  } as unknown as TemporalDecisions;
  app = await inboxOnDatabase(config, db.pool, { decisions });
});
after(async () => {
  await app?.close();
  await db?.drop();
});

test('an honest draft of the category goes on: it restates the question and answers from the knowledge', async () => {
  const r = await draftAndJudge(
    'Hi, your colleague promised me fast delivery. How long does delivery take? Anna',
    'Hello Anna,\n\nYou wrote that our colleague promised you fast delivery. Delivery takes 2 to 4 working days.\n\nKind regards\nThe support team',
  );
  assert.equal(r.verdict.send, true, r.verdict.reasons.join('; '));
});

test('a draft repeating a promise only the customer made waits for approval, the reason on the review page', async () => {
  const r = await draftAndJudge(
    'Hi, your colleague promised me free express shipping on my next order. Please make sure it is not charged. Anna',
    'Hello Anna,\n\nAs our colleague promised, express shipping on your next order is free.\n\nKind regards\nThe support team',
  );
  assert.deepEqual(r.draft.flags, [DRAFT_FLAGS.customerAsserted]);
  assert.equal(r.verdict.send, false);
  // The grounding is the only thing that keeps this draft from going alone.
  assert.deepEqual(r.verdict.reasons, [
    'the draft is flagged: customer_asserted',
    `${NEVER_AUTOMATIC_REASONS.customerAsserted}: 1 sentence(s) commit us to what only the customer's mail says ("As our colleague promised, express shipping on your next order is free.")`,
  ]);
  assert.deepEqual(approved, []);
  const stored = await createMariaDbDraftClaimStore(db.pool).list(r.draft.id);
  assert.deepEqual(
    stored.map((c) => [c.verdict, c.supportedBy]),
    [[GROUNDING_VERDICTS.customerAsserted, [r.emailId]]],
  );
  const en = await app.inject({ url: `/email/${r.emailId}`, headers: { 'x-forwarded-user': 'bea', 'accept-language': 'en' } });
  assert.equal(en.statusCode, 200);
  assert.match(
    en.body,
    /<li class="claim claim-customer_asserted">As our colleague promised[^<]*<br><span class="claim-label">customer-asserted: only the customer(&#39;|')s mail says this, no source of ours; never sent automatically<\/span>/,
  );
  assert.match(en.body, /<span class="flag flag-customer_asserted">promise only the customer made<\/span>/);
  assert.match(
    en.body,
    /auto_send_withheld<\/td><td><\/td><td>draft [^<]* waits for a person: [^<]*customer_asserted: 1 sentence\(s\) commit us to what only the customer/,
  );
  const de = await app.inject({ url: `/email/${r.emailId}`, headers: { 'x-forwarded-user': 'bea', 'accept-language': 'de' } });
  assert.match(de.body, /nur vom Kunden behauptet/);
  assert.match(de.body, /Zusage nur laut Kunde/);
});

test('a customer-asserted refund of 480 EUR by Friday is not sent automatically (German too)', async () => {
  for (const [mail, body] of [
    [
      'Hello, as agreed on the phone you will refund 480 EUR by Friday. Please confirm. Tom',
      'Hello Tom,\n\nAs agreed on the phone, we will refund 480 EUR by Friday.\n\nBest regards\nThe support team',
    ],
    [
      'Guten Tag, wie telefonisch vereinbart erstatten Sie mir 480 EUR bis Freitag. Tom',
      'Guten Tag Tom,\n\nwie telefonisch vereinbart erstatten wir Ihnen 480 EUR bis Freitag.\n\nMit freundlichen Grüßen\nIhr Support-Team',
    ],
  ] as const) {
    const r = await draftAndJudge(mail, body);
    assert.equal(r.verdict.send, false);
    assert.ok(
      r.verdict.reasons.some((x) => x.startsWith(`${NEVER_AUTOMATIC_REASONS.customerAsserted}: 1 sentence(s)`)),
      r.verdict.reasons.join('; '),
    );
    assert.equal(r.grounding.customerAsserted, 1);
  }
  assert.deepEqual(approved, []);
});

test('a sentence outside the factual rules that no source supports keeps the draft for a person, named in the reason', async () => {
  const r = await draftAndJudge(
    'Hi, how long does delivery take? Anna',
    'Hello Anna,\n\nYou ask how long delivery takes. Delivery takes 2 to 4 working days. The parcel is insured.\n\nKind regards\nThe support team',
  );
  // No reviewer flag: the rules do not call "The parcel is insured." factual; autonomy still reads its verdict.
  assert.deepEqual(r.draft.flags, []);
  assert.equal(r.verdict.send, false);
  assert.deepEqual(r.verdict.reasons, [
    `${NEVER_AUTOMATIC_REASONS.unsupportedClaims}: 1 unsupported and 0 mis-tied of 3 checked sentences ("The parcel is insured.")`,
  ]);
});
