/**
 * Claim-level grounding from the check to what people and autonomy see, on real MariaDB with the
 * real default embedder: a draft with a supported sentence, an invented amount and a sentence tied
 * to the wrong passage is checked, its claims stored (and replaced on a retry), earned autonomy
 * names the reason, and the review page shows it sentence by sentence (en/de). The workflow's
 * `state` query is a FAKE (no Temporal here).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { groundingReason } from '../../src/autonomy/grounding-reason';
import { NEVER_AUTOMATIC_REASONS } from '../../src/autonomy/autonomy.contract';
import { createMariaDbDraftClaimStore } from '../../src/drafting/draft-claims.mariadb';
import { GROUNDING_VERDICTS } from '../../src/drafting/drafting.contract';
import { createOpenAiEmbedder } from '../../src/retrieval/embedder.openai';
import { draftGrounding } from '../../src/email/draft/draft-grounding';
import type { TemporalDecisions } from '../../src/email/decisions/decisions.temporal';
import { loadConfig } from '../../src/config';
import { createTestDatabase } from '../support/database';
import { inboxOnDatabase } from '../support/inbox-app';
import { startEmbedder, type EmbedderServer } from '../support/services/embedder';
import type { GroundingResult } from '../../src/drafting/grounding-check';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let embedder: EmbedderServer;
let app: FastifyInstance;
let checked: GroundingResult;
const EMAIL = 'email-grounding-1';
const DRAFT = `${EMAIL}:draft:1`;
const REFUNDS = {
  sourceId: 'knowledge:billing-refunds.md#2',
  kind: 'knowledge' as const,
  title: 'Billing and refunds › Double charges',
  text: 'If an order was charged twice, we refund the duplicate payment within 5 business days to the original payment method.',
};
const RETURNS = {
  sourceId: 'knowledge:returns.md#1',
  kind: 'knowledge' as const,
  title: 'Returns › How to send something back',
  text: 'You can return an item within 30 days of delivery. Print the free return label from your customer account.',
};
const BODY = [
  'Hello Mark,',
  '',
  'We will refund the duplicate payment within 5 business days to your original payment method. We will also credit you 20 EUR for the trouble. Print the free return label from your customer account.',
  '',
  'Best regards',
  'The support team',
].join('\n');

before(async () => {
  [db, embedder] = await Promise.all([createTestDatabase('grounding'), startEmbedder()]);
  await db.pool.query(
    `INSERT INTO emails (id, source, status, mailbox_id, subject, text_body, from_address, from_name)
     VALUES (?, 'file', 'awaiting_approval', 'default', 'charged twice', 'You took the money for my order twice.', 'mark@kunde.example', 'Mark')`,
    [EMAIL],
  );
  await db.pool.query(
    `INSERT INTO drafts (id, email_id, version, subject, body, language, confidence, drafter, model, prompt_version, context_ids, flags, category, to_address)
     VALUES (?, ?, 1, 'Re: charged twice', ?, 'en', 0.9, 'openai', 'm', 'draft-v4', ?, '["unsupported_claims"]', 'billing', 'mark@kunde.example')`,
    [DRAFT, EMAIL, BODY, JSON.stringify([REFUNDS.sourceId, RETURNS.sourceId])],
  );
  const config = loadConfig({ DATABASE_URL: db.url, INBOX_AUTH: 'header' }, { imap: false });
  const decisions = {
    state: () => Promise.resolve({ waitingFor: { kind: 'approval', draftId: DRAFT, version: 1 } }),
  } as unknown as TemporalDecisions;
  app = await inboxOnDatabase(config, db.pool, { decisions });
});
after(async () => {
  await app?.close();
  await Promise.all([db?.drop(), embedder?.stop()]);
});

test('the draft step checks each factual sentence by meaning, and the claims are stored', async () => {
  const port = createOpenAiEmbedder({
    baseUrl: embedder.baseUrl,
    apiKey: 'not-needed',
    model: embedder.model,
    timeoutMs: 60_000,
    inputType: embedder.inputType,
  });
  checked = await draftGrounding(
    { embedder: port },
    { id: EMAIL, subject: 'charged twice', text: 'You took the money for my order twice.' },
    [REFUNDS, RETURNS],
    {
      body: BODY,
      claims: [
        {
          sentence: 'We will refund the duplicate payment within 5 business days to your original payment method.',
          sourceIds: [REFUNDS.sourceId],
        },
        { sentence: 'We will also credit you 20 EUR for the trouble.', sourceIds: [REFUNDS.sourceId] },
        { sentence: 'Print the free return label from your customer account.', sourceIds: [REFUNDS.sourceId] },
      ],
    },
  );
  assert.equal(checked.by, 'embedder');
  assert.deepEqual(
    checked.sentences.map((s) => s.verdict),
    [null, GROUNDING_VERDICTS.supported, GROUNDING_VERDICTS.unsupported, GROUNDING_VERDICTS.misTied, null, null],
  );
  const store = createMariaDbDraftClaimStore(db.pool);
  // A first attempt with an extra claim, then the retry: the draft keeps only the retry's claims.
  await store.save(
    { id: DRAFT, emailId: EMAIL },
    { ...checked, sentences: [...checked.sentences, { ...checked.sentences[1]!, index: 9 }] },
  );
  await store.save({ id: DRAFT, emailId: EMAIL }, checked);
  const stored = await store.list(DRAFT);
  assert.deepEqual(
    stored.map((c) => [c.sentenceIndex, c.verdict, c.supportedBy]),
    [
      [1, GROUNDING_VERDICTS.supported, [REFUNDS.sourceId]],
      [2, GROUNDING_VERDICTS.unsupported, []],
      [3, GROUNDING_VERDICTS.misTied, [RETURNS.sourceId]],
    ],
  );
  assert.ok(stored.every((c) => c.checkedBy === 'embedder'));
});

test('earned autonomy names the reason: an unsupported or mis-tied sentence waits for a person', async () => {
  const reason = await groundingReason({ draftClaims: createMariaDbDraftClaimStore(db.pool) }, { id: DRAFT, flags: [] });
  assert.equal(
    reason,
    `${NEVER_AUTOMATIC_REASONS.unsupportedClaims}: 1 unsupported and 1 mis-tied of 3 checked sentences ("We will also credit you 20 EUR for the trouble.")`,
  );
  // Without the stored claims the flag still tells; a draft with neither goes on.
  assert.match((await groundingReason({}, { id: DRAFT, flags: ['unsupported_claims'] })) ?? '', /^unsupported_claims: /);
  assert.equal(await groundingReason({}, { id: 'other', flags: [] }), null);
});

test('the review page shows each sentence with its support, and the summary (en, de)', async () => {
  const res = await app.inject({ url: `/email/${EMAIL}`, headers: { 'x-forwarded-user': 'bea', 'accept-language': 'en' } });
  assert.equal(res.statusCode, 200);
  const html = res.body;
  assert.match(html, /<p class="meta" id="grounding-summary">1 of 3 factual sentences supported<\/p>/);
  assert.match(html, /<li class="claim claim-none">Hello Mark,/);
  assert.match(
    html,
    /<li class="claim claim-supported">We will refund the duplicate payment[^<]*<br><span class="claim-label">supported<\/span>/,
  );
  assert.match(
    html,
    /<li class="claim claim-unsupported">We will also credit you 20 EUR[^<]*<br><span class="claim-label">not supported by its sources<\/span>/,
  );
  const source = (id: string) => `/email/${EMAIL}/source\\?sid=${encodeURIComponent(id).replace(/\./g, '\\.')}`;
  assert.match(
    html,
    new RegExp(
      `claim-mis_tied">Print the free return label[^<]*<br><span class="claim-label">cited source does not support it</span>\\s*· cited: <a href="${source(REFUNDS.sourceId)}">[^<]+</a>\\s*· supported by: <a href="${source(RETURNS.sourceId)}">`,
    ),
  );
  assert.match(html, /<span class="flag flag-unsupported_claims">unsupported claims<\/span>/);
  const de = await app.inject({ url: `/email/${EMAIL}`, headers: { 'x-forwarded-user': 'bea', 'accept-language': 'de' } });
  assert.match(de.body, /1 von 3 Sachaussagen belegt/);
  assert.match(de.body, /von keiner Quelle belegt/);
});
