/**
 * The draft step with approved replies as examples, against real servers (Dovecot, MariaDB, the
 * embedder, the LLM double over HTTP through the real `openai` client): a reply a person approved
 * for one customer reaches the prompt of another customer's mail of the same category, masked, in
 * its own section; the draft records `draft-v5+examples`; a sentence taken from the example is no
 * fact of the context, so the grounding check marks it unsupported. With DRAFT_EXAMPLES=0 the prompt
 * is the one without examples.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config';
import { PROMPT_VERSION } from '../../src/drafting/draft-prompt';
import { sampleEmail, startStack, type TestStack } from '../support/stack';
import { activityHarness, inboxDelivery } from './support';

let stack: TestStack;
let h: ReturnType<typeof activityHarness>;
let off: ReturnType<typeof activityHarness>;
let deliver: ReturnType<typeof inboxDelivery>;

before(async () => {
  stack = await startStack({ temporal: false });
  h = activityHarness(loadConfig({ ...stack.env, DRAFT_EXAMPLES: '2' }));
  off = activityHarness(loadConfig({ ...stack.env, DRAFT_EXAMPLES: '0' }));
  deliver = inboxDelivery(stack, h);
});
after(async () => {
  await Promise.all([h?.close(), off?.close()]);
  await stack?.stop();
});

/** A fact only the example states: nothing in the second customer's mail or context has it. */
const EXAMPLE_FACT = 'Die Erstattung von 49,90 EUR erfolgt innerhalb von 5 Werktagen.';
const APPROVED = `Guten Tag Frau Weber,\n\nvielen Dank für Ihren Hinweis. ${EXAMPLE_FACT} Die Gutschrift geht an eva.weber@kunde.example.\n\nMit freundlichen Grüßen\nIhr Kundenservice`;

/** What a model answers: `body` as the draft, in category billing, citing nothing. */
function answer(body: string): string {
  return JSON.stringify({
    language: 'de',
    category: 'billing',
    priority_suggestion: 'normal',
    subject: 'Re: Rechnung doppelt abgebucht',
    body,
    confidence: 0.8,
    used_source_ids: [],
    answered_case_mails: [],
    claims: [],
  });
}

async function intake(from: string, id: string, text: string): Promise<string> {
  const raw = sampleEmail({ from, subject: 'Rechnung doppelt abgebucht', body: text, messageId: `<${id}@kunde.example>` });
  const { emailId, source } = await deliver(raw);
  await h.run(emailId, h.activities.fetchEmail, { emailId, source });
  await h.run(emailId, h.activities.parseEmail, { emailId });
  await h.run(emailId, h.activities.indexEmail, { emailId });
  return emailId;
}

const draftRequests = (from: number) =>
  stack.llm.requests.slice(from).filter((r) => r.body.response_format?.json_schema?.name === 'email_draft');

const stored = async (draftId: string) =>
  (
    (await stack.db.pool.query('SELECT prompt_version, flags FROM drafts WHERE id = ?', [draftId])) as Array<{
      prompt_version: string;
      flags: string;
    }>
  )[0]!;

test('an approved reply of the category reaches another customer’s prompt masked, and is never support for a claim', async () => {
  // The first customer's mail: no approved reply yet, so no examples.
  const first = await intake(
    'Eva Weber <eva.weber@kunde.example>',
    'ex-1',
    'Guten Tag,\nmeine Rechnung RE-2024-0117 wurde doppelt abgebucht. Bitte erstatten Sie den Betrag.\nEva Weber',
  );
  stack.llm.script({ kind: 'content', content: answer(APPROVED), for: 'email_draft' });
  const draft = await h.run(first, h.activities.draftReply, { emailId: first, version: 1 });
  assert.equal(draft.category, 'billing');
  assert.equal((await stored(draft.draftId)).prompt_version, PROMPT_VERSION);
  await h.run(first, h.activities.recordDecision, { emailId: first, draftId: draft.draftId, decision: { kind: 'approve', by: 'anna' } });

  // Another customer, the same category: the approved reply is an example of its prompt.
  const second = await intake(
    'Max Muster <max@firma.example>',
    'ex-2',
    'Hallo,\ndie Rechnung RE-2024-0999 wurde zweimal von meinem Konto abgebucht. Was passiert jetzt?\nMax Muster',
  );
  const before = stack.llm.requests.length;
  // The model takes a sentence from the example: a fact the context does not have.
  stack.llm.script({
    kind: 'content',
    content: answer(`Guten Tag,\n\nvielen Dank für Ihre Nachricht. ${EXAMPLE_FACT}\n\nMit freundlichen Grüßen\nIhr Kundenservice`),
    for: 'email_draft',
  });
  const next = await h.run(second, h.activities.draftReply, { emailId: second, version: 1 });
  const [request] = draftRequests(before);
  const [system, user] = request!.body.messages!;
  assert.match(system!.content, /examples of tone, length, structure and phrasing only/);
  const section = /<examples>\n([\s\S]*)\n<\/examples>/.exec(user!.content)?.[1] ?? '';
  assert.match(section, /^<example n="1">\nGuten Tag Frau \[name\],/);
  assert.ok(section.includes(EXAMPLE_FACT), 'the example as approved, its facts included');
  for (const secret of ['Weber', 'eva.weber@']) assert.ok(!section.includes(secret), `"${secret}" in the examples: ${section}`);
  assert.doesNotMatch(user!.content.slice(0, user!.content.indexOf('<examples>')), /49,90/, 'not in the mail or the context');

  const row = await stored(next.draftId);
  assert.equal(row.prompt_version, `${PROMPT_VERSION}+examples`);
  // The example is not context: the sentence taken from it has no support.
  assert.ok(next.flags.includes('unsupported_claims'), `flags: ${next.flags.join(', ')}`);
  const claims = (await stack.db.pool.query('SELECT sentence, verdict, supported_by FROM draft_claims WHERE draft_id = ?', [
    next.draftId,
  ])) as Array<{ sentence: string; verdict: string; supported_by: string }>;
  const taken = claims.find((c) => c.sentence.includes('49,90'));
  assert.equal(taken?.verdict, 'unsupported');
  assert.equal(taken?.supported_by, '[]');
});

test('with DRAFT_EXAMPLES=0 the prompt carries no examples and keeps its version', async () => {
  const emailId = await intake(
    'Lena Berg <lena@firma.example>',
    'ex-3',
    'Guten Tag,\nmeine Rechnung RE-2024-1234 wurde doppelt abgebucht.\nLena Berg',
  );
  const before = stack.llm.requests.length;
  const draft = await off.run(emailId, off.activities.draftReply, { emailId, version: 1 });
  const [request] = draftRequests(before);
  assert.doesNotMatch(request!.body.messages!.map((m) => m.content).join('\n'), /<examples>|tone, length, structure/);
  assert.equal((await stored(draft.draftId)).prompt_version, PROMPT_VERSION);
});
