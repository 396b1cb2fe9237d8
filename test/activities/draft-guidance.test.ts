/**
 * The draft step with the team's guidance, against real servers (Dovecot, MariaDB, the embedder,
 * the LLM double over HTTP through the real `openai` client): the prompt carries the default's,
 * the mailbox's and the mail's category's guidance in the system message, outside the data tags,
 * and the draft stores the versions it was written under; a redraft after a new version takes the
 * new one while the first draft keeps its own. The offline drafter records the versions too and
 * follows the guidance's closing line.
 */
import { PROMPT_VERSION } from '../../src/drafting/draft-prompt';
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config';
import { saveGuidance } from '../../src/guidance/guidance-changes';
import { createMariaDbGuidanceStore } from '../../src/guidance/guidance-store.mariadb';
import { createMariaDbAuditLog } from '../../src/platform/audit-log.mariadb';
import { sampleEmail, startStack, type TestStack } from '../support/stack';
import { activityHarness, inboxDelivery } from './support';

let stack: TestStack;
let model: ReturnType<typeof activityHarness>;
let offline: ReturnType<typeof activityHarness>;
let deliver: ReturnType<typeof inboxDelivery>;
const ids: Record<string, number> = {};

const save = async (scope: string, text: string) => {
  const store = createMariaDbGuidanceStore(stack.db.pool);
  const { version } = await saveGuidance({ store, audit: createMariaDbAuditLog(stack.db.pool) }, { scope, text, author: 'olga' });
  ids[scope] = version.id;
  return version;
};

before(async () => {
  stack = await startStack({ temporal: false });
  model = activityHarness(loadConfig(stack.env));
  offline = activityHarness(loadConfig({ ...stack.env, LLM_BASE_URL: '' }));
  deliver = inboxDelivery(stack, model);
  await save('default', 'Sprechen Sie Kundinnen und Kunden mit „Sie“ an.\nClosing: Herzliche Grüße\\nIhr Team Nord');
  await save('mailbox:default', 'Versprechen Sie keinen Rückruf.');
  await save('category:billing', 'Never promise a refund before accounting has checked the invoice.');
  await save('category:delivery', 'Always name the tracking number.');
});
after(async () => {
  await Promise.all([model?.close(), offline?.close()]);
  await stack?.stop();
});

function mail(id: string, subject: string, text: string): string {
  return sampleEmail({ from: 'Eva Weber <eva@kunde.example>', subject, body: text, messageId: `<${id}@kunde.example>` });
}

async function intake(h: ReturnType<typeof activityHarness>, raw: string): Promise<string> {
  const { emailId, source } = await deliver(raw);
  await h.run(emailId, h.activities.fetchEmail, { emailId, source });
  await h.run(emailId, h.activities.parseEmail, { emailId });
  await h.run(emailId, h.activities.indexEmail, { emailId });
  return emailId;
}

const storedGuidance = async (draftId: string) =>
  (
    (await stack.db.pool.query('SELECT guidance_version, prompt_version FROM drafts WHERE id = ?', [draftId])) as Array<{
      guidance_version: string | null;
      prompt_version: string;
    }>
  )[0];

const BILLING =
  'Guten Tag,\nmeine Rechnung RE-2024-0117 wurde doppelt abgebucht. Bitte erstatten Sie mir den zu viel gezahlten Betrag.\nEva Weber';

test('the model is told the guidance outside the data tags, and the draft stores the versions used', async () => {
  const emailId = await intake(model, mail('g-1', 'Rechnung doppelt abgebucht', BILLING));
  const before = stack.llm.requests.length;
  const draft = await model.run(emailId, model.activities.draftReply, { emailId, version: 1 });
  const request = stack.llm.requests.slice(before).find((r) => r.body.response_format?.json_schema?.name === 'email_draft');
  const [system, user] = request!.body.messages!;
  assert.equal(system!.role, 'system');
  const guidance = system!.content.slice(system!.content.indexOf("The team's own instructions"));
  // Most general first; the delivery category's guidance is not this mail's.
  assert.match(
    guidance,
    /\[default\]\nSprechen Sie .*\n\[mailbox:default\]\nVersprechen Sie keinen Rückruf\.\n\[category:billing\]\nNever promise a refund/s,
  );
  assert.doesNotMatch(system!.content, /tracking number/);
  assert.doesNotMatch(user!.content, /Versprechen Sie keinen Rückruf|Never promise a refund/, 'nothing of it among the data');
  assert.match(user!.content, /<email [^\n]*>\nGuten Tag,\nmeine Rechnung RE-2024-0117/);
  const tag = `g${ids.default}+g${ids['mailbox:default']}+g${ids['category:billing']}`;
  assert.deepEqual(await storedGuidance(draft.draftId), { guidance_version: tag, prompt_version: PROMPT_VERSION });

  // A new default: the next draft is written under it; the first keeps what it was written under.
  await save('default', 'Sprechen Sie Kundinnen und Kunden mit „Sie“ an. Antworten Sie in höchstens fünf Sätzen.');
  const second = await model.run(emailId, model.activities.draftReply, { emailId, version: 2 });
  assert.equal(
    (await storedGuidance(second.draftId))!.guidance_version,
    `g${ids.default}+g${ids['mailbox:default']}+g${ids['category:billing']}`,
  );
  assert.notEqual(ids.default, Number(tag.slice(1, tag.indexOf('+'))));
  assert.equal((await storedGuidance(draft.draftId))!.guidance_version, tag);
});

test('the offline drafter records the versions and closes with the guidance closing line', async () => {
  await save('default', 'Sprechen Sie Kundinnen und Kunden mit „Sie“ an.\nClosing: Herzliche Grüße\\nIhr Team Nord');
  const emailId = await intake(offline, mail('g-2', 'Rechnung doppelt abgebucht', BILLING));
  const draft = await offline.run(emailId, offline.activities.draftReply, { emailId, version: 1 });
  assert.match(draft.body, /\n\nHerzliche Grüße\nIhr Team Nord$/);
  assert.ok(draft.flags.includes('offline_drafter'));
  const stored = await storedGuidance(draft.draftId);
  assert.equal(stored!.prompt_version, 'offline-v4');
  assert.match(stored!.guidance_version ?? '', new RegExp(`^g${ids.default}\\+g${ids['mailbox:default']}`));
});
