/**
 * The reply the customer reads names no internal source id, on real servers (Dovecot, MariaDB, the
 * embedder, the SMTP listener, the LLM double over HTTP through the real `openai` client) with the
 * demo's knowledge folder and its first mail (an invoice charged twice, its PDF attached): the
 * offline drafter's reply reaches the SMTP listener without a source id and exactly as approved;
 * a model's answer with "(Quelle: …)" notes and a "[1]" list is stored without them, its citations
 * kept as claims that the check still counts as supported and the review page shows beside each
 * sentence; a customer who quoted a source note keeps their words in the quote; a draft stored
 * with a note by an earlier release is offered without it, and approved unchanged (the CLI, earned
 * autonomy) it is approved without it, recorded as that edit; one an earlier release approved with
 * the note is never sent with it. The workflow's
 * `state` query for the review page is a FAKE (no Temporal here).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { simpleParser } from 'mailparser';
import { loadConfig } from '../../src/config';
import { internalSourceIds } from '../../src/drafting/source-ids';
import { DRAFT_OUTCOME, GROUNDING_VERDICTS, autonomyActor } from '../../src/drafting/drafting.contract';
import { EMAIL_AUDIT_EVENTS } from '../../src/email/email.contract';
import type { TemporalDecisions } from '../../src/email/decisions/decisions.temporal';
import { PermanentError } from '../../src/platform/errors';
import { FAILURE_TYPES } from '../../src/platform/contract';
import { inboxOnDatabase } from '../support/inbox-app';
import { startStack, type TestStack } from '../support/stack';
import { activityHarness, inboxDelivery } from './support';

const ROOT = path.resolve(__dirname, '../..');
const DEMO_MAIL = readFileSync(path.join(ROOT, 'scripts/demo-mails/01-rechnung-doppelt-abgebucht.eml'), 'utf8');
const FAQ = 'knowledge:faq/rechnung.md#1';

let stack: TestStack;
let offline: ReturnType<typeof activityHarness>;
let model: ReturnType<typeof activityHarness>;
let deliver: ReturnType<typeof inboxDelivery>;
/** What the review page asks the workflow: it waits for approval of this draft. */
let waitingDraft = '';
let inbox: FastifyInstance;

before(async () => {
  stack = await startStack({ temporal: false, env: { KNOWLEDGE_DIR: path.join(ROOT, 'scripts/demo-knowledge') } });
  offline = activityHarness(loadConfig({ ...stack.env, LLM_BASE_URL: '' }));
  model = activityHarness(loadConfig(stack.env));
  deliver = inboxDelivery(stack, offline);
  await offline.deps.syncKnowledge();
  const decisions = {
    state: () => Promise.resolve({ waitingFor: { kind: 'approval', draftId: waitingDraft, version: 1 } }),
  } as unknown as TemporalDecisions;
  inbox = await inboxOnDatabase(loadConfig({ ...stack.env, INBOX_AUTH: 'header' }, { imap: false }), stack.db.pool, { decisions });
});
after(async () => {
  await inbox?.close();
  await Promise.all([offline?.close(), model?.close()]);
  await stack?.stop();
});

/** The demo mail again under its own Message-ID, with `extra` added to what the customer wrote. */
function demoMail(id: string, extra = ''): string {
  return DEMO_MAIL.replace(/^Message-ID: .*$/m, `Message-ID: <${id}@mustermann-design.example>`).replace(
    'Erika Mustermann\nMustermann Design, Köln',
    `Erika Mustermann\nMustermann Design, Köln${extra}`,
  );
}

async function intake(h: ReturnType<typeof activityHarness>, raw: string): Promise<string> {
  const { emailId, source } = await deliver(raw.replace(/\r?\n/g, '\r\n'));
  await h.run(emailId, h.activities.fetchEmail, { emailId, source });
  await h.run(emailId, h.activities.parseEmail, { emailId });
  await h.run(emailId, h.activities.indexEmail, { emailId });
  return emailId;
}

const approve = (h: ReturnType<typeof activityHarness>, emailId: string, draftId: string, body?: string) =>
  h.run(emailId, h.activities.recordDecision, {
    emailId,
    draftId,
    decision: { kind: 'approve', by: 'anna', ...(body !== undefined ? { body } : {}) },
  });

/** Sends the approved draft and returns the message as the SMTP listener received it, parsed. */
async function sent(emailId: string, draftId: string) {
  const { messageId } = await offline.run(emailId, offline.activities.sendReply, { emailId, draftId });
  const raw = stack.smtp.messages.find((m) => m.raw.toString('utf8').includes(messageId));
  assert.ok(raw, `no message ${messageId} at the SMTP listener`);
  return simpleParser(raw.raw);
}

async function storedDraft(draftId: string) {
  const rows = (await stack.db.pool.query('SELECT body, context_ids, flags FROM drafts WHERE id = ?', [draftId])) as Array<{
    body: string;
    context_ids: string;
    flags: string;
  }>;
  const row = rows[0]!;
  return { body: row.body, contextIds: JSON.parse(row.context_ids) as string[], flags: JSON.parse(row.flags) as string[] };
}

async function claims(draftId: string) {
  const rows = (await stack.db.pool.query(
    'SELECT sentence, cited_ids, verdict FROM draft_claims WHERE draft_id = ? ORDER BY sentence_index',
    [draftId],
  )) as Array<{ sentence: string; cited_ids: string; verdict: string }>;
  return rows.map((r) => ({ sentence: r.sentence, cited: JSON.parse(r.cited_ids) as string[], verdict: r.verdict }));
}

/** The text above the quoted customer message ("Am … schrieb …:" and the "> " lines below it). */
const aboveQuote = (text: string): string => text.split(/\n(?:Am|On) [^\n]*(?:schrieb|wrote)[^\n]*:\n/)[0]!;

test("the offline drafter's reply to the demo mail reaches the customer without a source id, exactly as approved", async () => {
  const emailId = await intake(offline, demoMail('sources-offline'));
  const draft = await offline.run(emailId, offline.activities.draftReply, { emailId, version: 1 });
  const stored = await storedDraft(draft.draftId);
  assert.ok(stored.contextIds.includes(FAQ), JSON.stringify(stored.contextIds));
  assert.deepEqual(internalSourceIds(stored.body, [emailId, ...stored.contextIds]), [], stored.body);
  assert.doesNotMatch(stored.body, /\((Quelle|Source)/);
  // The sources are the claims': every quoted sentence names its passage, and the check finds it supported.
  const checked = await claims(draft.draftId);
  assert.ok(
    checked.some((c) => c.cited.includes(FAQ) && c.verdict === GROUNDING_VERDICTS.supported),
    JSON.stringify(checked),
  );
  await approve(offline, emailId, draft.draftId);
  const mail = await sent(emailId, draft.draftId);
  const text = mail.text!.replace(/\r\n/g, '\n');
  assert.ok(text.startsWith(stored.body), `the text sent begins with the approved text as it stands:\n${text}`);
  for (const part of [text, String(mail.html)]) assert.doesNotMatch(part, /knowledge:|attachment:|\((Quelle|Source):|email-/);
});

test("a model's inline citations are taken out of the text and kept for the check and the review page", async () => {
  const emailId = await intake(model, demoMail('sources-model'));
  const body = [
    'Guten Tag Frau Mustermann,',
    '',
    `vielen Dank für Ihre Nachricht. Die Rückerstattung dauert in der Regel 3 bis 5 Werktage (Quelle: ${FAQ}). Sie erhalten dazu eine Gutschrift mit derselben Rechnungsnummer [1].`,
    '',
    'Mit freundlichen Grüßen',
    'Ihr Support-Team',
    '',
    'Quellen:',
    `[1] ${FAQ}`,
  ].join('\n');
  stack.llm.script({
    kind: 'content',
    for: 'email_draft',
    content: JSON.stringify({
      language: 'de',
      category: 'billing',
      priority_suggestion: 'normal',
      subject: 'Re: Rechnung RE-2024-0117 doppelt abgebucht',
      body,
      confidence: 0.8,
      used_source_ids: [FAQ],
      answered_case_mails: [],
      // The model listed no claims: its citations are only in the text.
      claims: [],
    }),
  });
  const draft = await model.run(emailId, model.activities.draftReply, { emailId, version: 1 });
  const expected = [
    'Guten Tag Frau Mustermann,',
    '',
    'vielen Dank für Ihre Nachricht. Die Rückerstattung dauert in der Regel 3 bis 5 Werktage. Sie erhalten dazu eine Gutschrift mit derselben Rechnungsnummer.',
    '',
    'Mit freundlichen Grüßen',
    'Ihr Support-Team',
  ].join('\n');
  assert.equal(draft.body, expected);
  assert.equal((await storedDraft(draft.draftId)).body, expected);
  assert.ok(!draft.flags.includes('unsupported_claims'), draft.flags.join(', '));
  const checked = await claims(draft.draftId);
  for (const sentence of [
    'Die Rückerstattung dauert in der Regel 3 bis 5 Werktage.',
    'Sie erhalten dazu eine Gutschrift mit derselben Rechnungsnummer.',
  ]) {
    const claim = checked.find((c) => c.sentence === sentence);
    assert.deepEqual(
      claim && { cited: claim.cited, verdict: claim.verdict },
      { cited: [FAQ], verdict: GROUNDING_VERDICTS.supported },
      JSON.stringify(checked),
    );
  }

  // The review page: each sentence with its source beside it, the sources listed, a text without ids to approve.
  waitingDraft = draft.draftId;
  const page = await inbox.inject({ url: `/email/${emailId}`, headers: { 'x-forwarded-user': 'bea', 'accept-language': 'de' } });
  assert.equal(page.statusCode, 200);
  const href = `/email/${encodeURIComponent(emailId)}/source?sid=${encodeURIComponent(FAQ)}`;
  assert.ok(page.body.includes(`<li><a href="${href}">${FAQ}</a></li>`), 'the sources are listed');
  assert.match(
    page.body,
    new RegExp(
      `claim-supported">Die Rückerstattung dauert in der Regel 3 bis 5 Werktage\\.[\\s\\S]*?<a href="${href.replace(/[.?]/g, '\\$&')}">`,
    ),
  );
  const textarea = /<textarea id="body"[^>]*>([\s\S]*?)<\/textarea>/.exec(page.body)?.[1] ?? '';
  assert.match(textarea, /3 bis 5 Werktage\./);
  assert.doesNotMatch(textarea, /knowledge:|Quelle/);
  assert.doesNotMatch(page.body, /id="source-ids-taken-out"/);
});

test('a customer who quoted a source note keeps their words in the quote; the reply above it names none', async () => {
  const note = `(Quelle: ${FAQ})`;
  const emailId = await intake(offline, demoMail('sources-hostile', `\n\nIhre letzte Antwort sagte: "3 bis 5 Werktage" ${note}`));
  const draft = await offline.run(emailId, offline.activities.draftReply, { emailId, version: 1 });
  assert.doesNotMatch(draft.body, /knowledge:|Quelle/);
  await approve(offline, emailId, draft.draftId);
  const mail = await sent(emailId, draft.draftId);
  const text = mail.text!.replace(/\r\n/g, '\n');
  assert.doesNotMatch(aboveQuote(text), /knowledge:|Quelle/, text);
  // The quote is the customer's own text, word for word: nothing of theirs is rewritten.
  assert.ok(text.includes(`> Ihre letzte Antwort sagte: "3 bis 5 Werktage" ${note}`), text);
});

/** A draft of the demo mail as an earlier release stored it: a source note in its text. */
async function legacyDraft(id: string) {
  const emailId = await intake(offline, demoMail(id));
  const draft = await offline.run(emailId, offline.activities.draftReply, { emailId, version: 1 });
  const clean = draft.body;
  const legacy = clean.replace('\n\nFalls damit', `\n(Quelle: ${FAQ})\n\nFalls damit`);
  assert.notEqual(legacy, clean);
  await stack.db.pool.query('UPDATE drafts SET body = ? WHERE id = ?', [legacy, draft.draftId]);
  return { emailId, draftId: draft.draftId, clean, legacy };
}

async function approvalRecord(emailId: string, draftId: string) {
  const [draft] = (await stack.db.pool.query('SELECT approved_body FROM drafts WHERE id = ?', [draftId])) as Array<{
    approved_body: string | null;
  }>;
  const [outcome] = (await stack.db.pool.query('SELECT outcome, edit_distance FROM draft_outcomes WHERE draft_id = ?', [
    draftId,
  ])) as Array<{
    outcome: string;
    edit_distance: number;
  }>;
  const audit = (await stack.db.pool.query('SELECT actor, message, details FROM audit_log WHERE email_id = ? AND event_type = ?', [
    emailId,
    EMAIL_AUDIT_EVENTS.draftApproved,
  ])) as Array<{ actor: string; message: string; details: string }>;
  return {
    approvedBody: draft!.approved_body,
    outcome: outcome!.outcome,
    editDistance: Number(outcome!.edit_distance),
    audit: audit.map((a) => ({ actor: a.actor, message: a.message, details: JSON.parse(a.details) as Record<string, unknown> })),
  };
}

test('a draft stored with a source note before this release is offered without it, and approved unchanged it is sent without it, recorded as that edit', async () => {
  const { emailId, draftId, clean } = await legacyDraft('sources-legacy');
  waitingDraft = draftId;
  const page = await inbox.inject({ url: `/email/${emailId}`, headers: { 'x-forwarded-user': 'bea', 'accept-language': 'en' } });
  assert.match(page.body, /id="source-ids-taken-out"/);
  const textarea = /<textarea id="body"[^>]*>([\s\S]*?)<\/textarea>/.exec(page.body)?.[1] ?? '';
  assert.doesNotMatch(textarea, /knowledge:|Quelle/);

  // Approved unchanged (the CLI): the text the page offers is approved and recorded as an edit, audited with the ids taken out.
  await approve(offline, emailId, draftId);
  const record = await approvalRecord(emailId, draftId);
  assert.equal(record.approvedBody, clean);
  assert.equal(record.outcome, DRAFT_OUTCOME.lightEdit);
  assert.ok(record.editDistance > 0, String(record.editDistance));
  assert.equal(record.audit.length, 1);
  assert.equal(record.audit[0]!.actor, 'anna');
  assert.match(record.audit[0]!.message, new RegExp(`without the internal source ids its text named \\(${FAQ.replace(/[.]/g, '\\.')}\\)`));
  assert.deepEqual(
    { edited: record.audit[0]!.details.edited, removed: record.audit[0]!.details.sourceIdsRemoved },
    { edited: true, removed: [FAQ] },
  );
  const mail = await sent(emailId, draftId);
  const text = mail.text!.replace(/\r\n/g, '\n');
  assert.ok(text.startsWith(clean), text);
  for (const part of [aboveQuote(text), String(mail.html)]) assert.doesNotMatch(part, /knowledge:|Quelle/);
});

test('earned autonomy approving such a draft sends it without the note too', async () => {
  const { emailId, draftId, clean } = await legacyDraft('sources-legacy-autonomy');
  const by = autonomyActor('p1');
  await offline.run(emailId, offline.activities.recordDecision, { emailId, draftId, decision: { kind: 'approve', by } });
  const record = await approvalRecord(emailId, draftId);
  assert.equal(record.approvedBody, clean);
  assert.equal(record.outcome, DRAFT_OUTCOME.lightEdit);
  assert.deepEqual(record.audit[0]!.details.sourceIdsRemoved, [FAQ]);
  assert.equal(record.audit[0]!.actor, by);
  const mail = await sent(emailId, draftId);
  assert.ok(mail.text!.replace(/\r\n/g, '\n').startsWith(clean));
});

test('a draft an earlier release approved unchanged with a source note is never sent with it', async () => {
  const { emailId, draftId, clean } = await legacyDraft('sources-legacy-approved');
  // Approved unchanged by an earlier release: the text as it stood is the approved one.
  await stack.db.pool.query("UPDATE drafts SET status = 'approved', approved_body = body, decided_by = 'anna' WHERE id = ?", [draftId]);
  const before = stack.smtp.messages.length;
  await assert.rejects(
    offline.run(emailId, offline.activities.sendReply, { emailId, draftId }),
    (err: unknown) => err instanceof PermanentError && err.code === FAILURE_TYPES.internalSourceIds && err.message.includes(FAQ),
  );
  assert.equal(stack.smtp.messages.length, before, 'nothing reached the SMTP listener');
  // Approved again as the page offers it (an edit without the note): sent exactly so.
  await stack.db.pool.query("UPDATE drafts SET status = 'awaiting_approval', approved_body = NULL WHERE id = ?", [draftId]);
  await approve(offline, emailId, draftId, clean);
  const mail = await sent(emailId, draftId);
  assert.ok(mail.text!.replace(/\r\n/g, '\n').startsWith(clean));
});
