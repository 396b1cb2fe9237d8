/**
 * Held spam in the review inbox over HTTP (the real inbox app on a socket, real MariaDB, the real
 * pull-back that `email-rag answer` uses; only the start of the Temporal run is recorded instead of
 * sent): the list shows the mail held as spam with its reason and nothing else, in German and
 * English; "not spam – draft it" needs the CSRF token, starts the email's workflow again for a
 * reply with the person's name and writes a `spam_released` audit row; an email that is not held
 * is refused with a message.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config';
import { pullBack } from '../../src/email/intake/pull-back';
import type { EmailWorkflowInput } from '../../src/email/email-input';
import { TRIAGE_AUDIT_EVENTS } from '../../src/triage/triage.contract';
import { inboxOnDatabase, listenLocally } from '../support/inbox-app';
import { createTestDatabase } from '../support/database';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: FastifyInstance;
let base: string;
const started: EmailWorkflowInput[] = [];

const REASON = 'built-in spam check: 9.5 points (≥ 5): "prize" wording, a link to a bare IP address';

before(async () => {
  db = await createTestDatabase('inboxspam');
  await db.pool.query(
    `INSERT INTO emails (id, source, status, priority, mailbox_id, mailbox, subject, from_address, from_name, triage_class, status_reason)
     VALUES ('email-spam-1', 'file', 'ignored', 'normal', 'default', 'INBOX', 'You have been selected', 'winner@lottery.example', 'Lotto', 'spam', ?),
            ('email-spam-2', 'file', 'ignored', 'low', 'default', 'INBOX', 'Rechnung 0117', 'erika@kunde.example', 'Erika Muster', 'spam', 'X-Spam-Flag: YES'),
            ('email-ooo', 'file', 'ignored', 'normal', 'default', 'INBOX', 'Abwesenheitsnotiz', 'bob@kunde.example', 'Bob', 'auto_reply', 'Auto-Submitted: auto-replied'),
            ('email-waiting', 'file', 'awaiting_approval', 'normal', 'default', 'INBOX', 'Frage', 'max@kunde.example', 'Max', NULL, NULL)`,
    [REASON],
  );
  await db.pool.query(`INSERT INTO inbox_users (name, password_hash, role) VALUES ('rita', 'x', 'reviewer')`);
  const config = loadConfig({ DATABASE_URL: db.url, INBOX_AUTH: 'header' }, { imap: false });
  app = await inboxOnDatabase(config, db.pool, {
    release: (id, by) =>
      pullBack(
        {
          pool: db.pool,
          maxDrafts: config.maxDrafts,
          start: async (input) => {
            started.push(input);
          },
        },
        id,
        by,
      ),
  });
  base = await listenLocally(app);
});

after(async () => {
  await app?.close();
  await db?.drop();
});

async function get(path: string, lang = 'en') {
  const res = await fetch(`${base}${path}`, { headers: { 'x-forwarded-user': 'rita', 'accept-language': lang }, redirect: 'manual' });
  return { status: res.status, html: await res.text(), cookie: res.headers.get('set-cookie') ?? '' };
}

const rowIds = (html: string) => [...html.matchAll(/<tr data-email-id="([^"]+)"/g)].map((m) => m[1]!);

test('the spam list shows the mail held as spam with its reason, linked from every page, in German and English', async () => {
  const queue = await get('/');
  assert.match(queue.html, /<a href="\/spam" id="nav-spam">Held as spam<\/a>/);
  const page = await get('/spam');
  assert.equal(page.status, 200);
  assert.deepEqual(rowIds(page.html).sort(), ['email-spam-1', 'email-spam-2'], 'only ignored mail of class spam');
  assert.ok(page.html.includes('built-in spam check: 9.5 points (≥ 5): &quot;prize&quot; wording'), 'the reason, escaped');
  assert.match(page.html, /action="\/email\/email-spam-1\/not-spam"/);
  assert.match(page.html, />Not spam – draft it</);
  const mail = await get('/email/email-spam-2');
  assert.match(mail.html, /<form method="post" action="\/email\/email-spam-2\/not-spam" class="decision" id="not-spam-form">/);
  assert.doesNotMatch(
    (await get('/email/email-ooo')).html,
    /not-spam-form/,
    'an auto-reply is pulled back with email-rag answer, not as spam',
  );
  const de = await get('/spam', 'de');
  assert.match(de.html, /Als Spam zurückgehalten/);
  assert.match(de.html, />Kein Spam – Entwurf schreiben</);
});

test('"not spam – draft it" needs the CSRF token, starts the run for a reply and is audited as spam_released', async () => {
  const forged = await fetch(`${base}/email/email-spam-1/not-spam`, {
    method: 'POST',
    headers: { 'x-forwarded-user': 'rita', 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
    redirect: 'manual',
  });
  assert.equal(forged.status, 403);
  assert.equal(started.length, 0, 'nothing started without the token');

  const page = await get('/spam');
  const token = /name="_csrf" value="([^"]+)"/.exec(page.html)![1]!;
  let cookie = page.cookie.split(';')[0]!;
  const post = async (id: string, fields: Record<string, string> = {}) => {
    const res = await fetch(`${base}/email/${id}/not-spam`, {
      method: 'POST',
      headers: { 'x-forwarded-user': 'rita', cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: token, ...fields }),
      redirect: 'manual',
    });
    cookie = res.headers.get('set-cookie')?.split(';')[0] ?? cookie;
    const after = await (await fetch(`${base}/spam`, { headers: { 'x-forwarded-user': 'rita', cookie } })).text();
    return { status: res.status, location: res.headers.get('location'), after };
  };

  const released = await post('email-spam-1');
  assert.equal(released.status, 303);
  assert.equal(released.location, '/spam');
  assert.match(released.after, /id="flash"[\s\S]*email-spam-1 is back in the pipeline for a reply, requested by rita/);
  assert.deepEqual(started, [
    {
      emailId: 'email-spam-1',
      source: { kind: 'stored', mailboxId: 'default' },
      priority: 'normal',
      answerRequestedBy: 'rita',
      maxDrafts: 6,
    },
  ]);
  const audit = (await db.pool.query(`SELECT event_type, actor, message FROM audit_log WHERE email_id = 'email-spam-1'`)) as Array<
    Record<string, string>
  >;
  assert.equal(audit.length, 1);
  assert.equal(audit[0]!.event_type, TRIAGE_AUDIT_EVENTS.spamReleased);
  assert.equal(audit[0]!.actor, 'rita');
  assert.match(audit[0]!.message!, /rita released an email held as spam/);

  const fromPage = await post('email-spam-2', { back: 'email' });
  assert.equal(fromPage.location, '/email/email-spam-2', "from the mail's page back to it");
  assert.equal(started.at(-1)?.emailId, 'email-spam-2');

  const refused = await post('email-waiting');
  assert.equal(refused.status, 303);
  assert.match(refused.after, /email-waiting is awaiting_approval, not ignored: nothing to pull back/);
  assert.equal(started.length, 2, 'nothing started for an email that is not held');
});
