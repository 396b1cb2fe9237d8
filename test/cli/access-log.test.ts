/**
 * The access log: the review inbox (rendered by the server against real MariaDB) records who
 * opened which email and which draft source; `email-rag audit access` (the real CLI process)
 * lists it, filtered. The source page shows our reply to another customer masked by what is known
 * of that customer (a first name alone, a customer number). The workflow's `state` query is a
 * FAKE (no Temporal here).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { TemporalDecisions } from '../../src/email/decisions/decisions.temporal';
import { loadConfig } from '../../src/config';
import { inboxOnDatabase } from '../support/inbox-app';
import { runCli } from '../support/cli-run';
import { createTestDatabase } from '../support/database';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: FastifyInstance;
const EMAIL = 'email-access-1';
const OTHER = 'email-access-other';
const SENT = `${OTHER}:draft:1:sent`;

before(async () => {
  db = await createTestDatabase('accesslog');
  await db.pool.query(
    `INSERT INTO emails (id, source, status, subject, text_body, from_address, from_name) VALUES
       (?, 'file', 'awaiting_approval', 'Lieferzeit', 'Wie lange?', 'eva@kunde.example', 'Eva Berg'),
       (?, 'file', 'sent', 'Refund', 'My number is KD-20931.\n\nBest regards,\nSarah Thompson\n14 Kingsley Road, Leeds LS6 2AB', 'sarah@mail.example', 'Sarah Thompson')`,
    [EMAIL, OTHER],
  );
  await db.pool.query(
    `INSERT INTO drafts (id, email_id, version, subject, body, language, confidence, drafter, model, prompt_version, context_ids, flags, to_address)
     VALUES (?, ?, 1, 'Re: Lieferzeit', 'Drei Tage.', 'de', 0.9, 'openai', 'm', 'v1', ?, '[]', 'eva@kunde.example')`,
    [`${EMAIL}:draft:1`, EMAIL, JSON.stringify([SENT])],
  );
  await db.pool.query(
    `INSERT INTO passages (email_id, idx, mailbox, thread_id, direction, from_address, correspondent, title, text)
     VALUES (?, 0, 'INBOX', 't', 'out', 'support@example.test', 'sarah@mail.example', 'Re: Refund', 'Sarah, your refund for KD-20931 is on its way to Kingsley Road.')`,
    [SENT],
  );
  const config = loadConfig({ DATABASE_URL: db.url, INBOX_AUTH: 'header' }, { imap: false });
  const decisions = { state: () => Promise.resolve(null) } as unknown as TemporalDecisions;
  app = await inboxOnDatabase(config, db.pool, {
    decisions,
  });
});
after(async () => {
  await app?.close();
  await db?.drop();
});

const as = (user: string) => ({ 'x-forwarded-user': user, 'accept-language': 'en' });

test('opening an email and a draft source is recorded; a missing email is not', async () => {
  assert.equal((await app.inject({ url: `/email/${EMAIL}`, headers: as('bea') })).statusCode, 200);
  const source = await app.inject({ url: `/email/${EMAIL}/source?sid=${encodeURIComponent(SENT)}`, headers: as('bea') });
  assert.equal(source.statusCode, 200);
  // Masked by what is known of Sarah: her first name alone, her customer number, her street.
  assert.doesNotMatch(source.body, /Sarah|KD-20931|Kingsley/);
  assert.match(source.body, /\[name\]/);
  assert.equal((await app.inject({ url: '/email/no-such-email', headers: as('carl') })).statusCode, 404);
  assert.equal((await app.inject({ url: `/email/${EMAIL}`, headers: as('carl') })).statusCode, 200);

  const rows = (await db.pool.query('SELECT actor, action, email_id, detail FROM access_log ORDER BY id')) as Array<Record<string, string>>;
  assert.deepEqual(
    rows.map((r) => [r.actor, r.action, r.email_id, r.detail]),
    [
      ['bea', 'email_viewed', EMAIL, ''],
      ['bea', 'source_viewed', EMAIL, SENT],
      ['carl', 'email_viewed', EMAIL, ''],
    ],
  );
});

test('email-rag audit access lists it, filtered by user, email and window', async () => {
  const env = { DATABASE_URL: db.url };
  const bea = await runCli(env, ['audit', 'access', '--user', 'bea', '--json']);
  assert.equal(bea.code, 0, bea.stderr);
  assert.deepEqual(
    (JSON.parse(bea.stdout) as Array<{ action: string }>).map((r) => r.action),
    ['source_viewed', 'email_viewed'],
  );
  const byEmail = await runCli(env, ['audit', 'access', '--email', EMAIL, '--since', '1d']);
  assert.equal(byEmail.stdout.trim().split('\n').length, 3);
  assert.match(byEmail.stdout, /\tcarl\temail_viewed\temail-access-1/);
  const none = await runCli(env, ['audit', 'access', '--user', 'nobody']);
  assert.equal(none.stdout.trim(), 'no access recorded');
  const bad = await runCli(env, ['audit', 'access', '--since', 'yesterday']);
  assert.equal(bad.code, 2);
  const wrong = await runCli(env, ['audit', 'accesses']);
  assert.equal(wrong.code, 2);
});
