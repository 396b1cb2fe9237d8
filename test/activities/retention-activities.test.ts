import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createMariaDbAuditLog } from '../../src/platform/audit-log.mariadb';
import { createFullTextIndex } from '../../src/retrieval/fulltext-index.mariadb';
import { createMariaDbRetentionStore } from '../../src/privacy/retention-store.mariadb';
import { createRetentionActivities } from '../../src/privacy/retention.activities';
import { readRetention, RETENTION_DEFAULTS, type RetentionSettings } from '../../src/privacy/privacy.config';
import { createTestDatabase } from '../support/database';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY);

before(async () => {
  db = await createTestDatabase('retention');
});
after(async () => db?.drop());

async function count(sql: string, params: unknown[] = []): Promise<number> {
  return Number(((await db.pool.query(sql, params)) as Array<{ n: bigint }>)[0]!.n);
}

/** `n` emails of `from`, in `status`, that changed status `days` ago, with raw mail, a draft and passages. */
async function seed(prefix: string, from: string, status: string, days: number, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const id = `${prefix}-${i}`;
    await db.pool.query(
      `INSERT INTO emails (id, source, status, from_address, subject, text_body, status_changed_at, thread_id) VALUES (?, 'file', ?, ?, 'Subject', 'Body text', ?, ?)`,
      [id, status, from, ago(days), id],
    );
    await db.pool.query(`INSERT INTO raw_messages (email_id, raw, size, sha256) VALUES (?, 'raw', 3, 'x')`, [id]);
    await db.pool.query(
      `INSERT INTO email_attachments (email_id, part_index, filename, declared_type, size, sha256, chunks, data) VALUES (?, 0, 'invoice.pdf', 'application/pdf', 6, 'x', 2, 'abc')`,
      [id],
    );
    await db.pool.query(`INSERT INTO email_attachment_parts (email_id, part_index, seq, data) VALUES (?, 0, 1, 'def')`, [id]);
    await db.pool.query(`INSERT INTO email_attachment_texts (email_id, part_index, page, text) VALUES (?, 0, 1, 'Total 12 EUR')`, [id]);
    await db.pool.query(
      `INSERT INTO drafts (id, email_id, version, subject, body, language, drafter, model, prompt_version, context_ids, to_address) VALUES (?, ?, 1, 'Re', 'Draft body', 'en', 'offline', 'm', 'p', '[]', ?)`,
      [`${id}:draft:1`, id, from],
    );
    await db.pool.query(
      `INSERT INTO passages (email_id, idx, mailbox, thread_id, direction, from_address, correspondent, text, created_at) VALUES (?, 0, 'INBOX', ?, 'in', ?, ?, 'passage text', ?)`,
      [id, id, from, from, ago(days)],
    );
  }
}

function activities(settings: Partial<RetentionSettings>) {
  return createRetentionActivities({
    store: createMariaDbRetentionStore(db.pool),
    settings: { ...RETENTION_DEFAULTS, ...settings },
    index: createFullTextIndex(db.pool),
    audit: createMariaDbAuditLog(db.pool),
    pauseMs: 0,
  });
}

test('expired raw mail, bodies, passages, audit and access rows go in batches; open work and recent data stay', async () => {
  await seed('old-closed', 'gone@customer.example', 'sent', 800, 5);
  await seed('old-open', 'waiting@customer.example', 'awaiting_approval', 800, 2);
  await seed('recent', 'recent@customer.example', 'sent', 10, 3);
  for (let i = 0; i < 4; i++) {
    await db.pool.query(
      `INSERT INTO audit_log (email_id, correlation_id, event_type, message, created_at) VALUES (NULL, 'c', 'x', 'old', ?)`,
      [ago(800)],
    );
    await db.pool.query(`INSERT INTO access_log (actor, action, created_at) VALUES ('anna', 'email_viewed', ?)`, [ago(400)]);
  }
  const { purgeExpired } = activities({});

  const dry = await purgeExpired({ batchSize: 2, dryRun: true, budgetMs: 10_000 });
  assert.deepEqual(dry.purged, { raw_mail: 5, bodies: 5, replay: 0, passages: 5, audit: 4, access_log: 4 });
  assert.equal(await count('SELECT COUNT(*) AS n FROM raw_messages'), 10);

  // No time budget: stops before the first batch and says more is left.
  assert.deepEqual(await purgeExpired({ batchSize: 2, dryRun: false, budgetMs: 0 }), { purged: { raw_mail: 0 }, more: true });

  const r = await purgeExpired({ batchSize: 2, dryRun: false, budgetMs: 60_000 });
  assert.equal(r.more, false);
  assert.deepEqual(r.purged, { raw_mail: 5, bodies: 5, replay: 0, passages: 5, audit: 4, access_log: 4 });
  assert.equal(await count("SELECT COUNT(*) AS n FROM raw_messages WHERE email_id LIKE 'old-closed%'"), 0);
  // Attachments go with the raw mail they came in.
  for (const table of ['email_attachments', 'email_attachment_parts', 'email_attachment_texts']) {
    assert.equal(await count(`SELECT COUNT(*) AS n FROM ${table} WHERE email_id LIKE 'old-closed%'`), 0, table);
    assert.equal(await count(`SELECT COUNT(*) AS n FROM ${table} WHERE email_id NOT LIKE 'old-closed%'`), 5, table);
  }
  assert.equal(await count("SELECT COUNT(*) AS n FROM emails WHERE id LIKE 'old-closed%' AND text_body IS NULL AND subject IS NULL"), 5);
  assert.equal(await count("SELECT COUNT(*) AS n FROM drafts WHERE email_id LIKE 'old-closed%' AND body = ''"), 5);
  assert.equal(await count("SELECT COUNT(*) AS n FROM passages WHERE email_id LIKE 'old-closed%'"), 0);
  // An open email keeps its raw mail, body and its correspondent's passages; recent mail keeps everything.
  assert.equal(await count("SELECT COUNT(*) AS n FROM raw_messages WHERE email_id NOT LIKE 'old-closed%'"), 5);
  assert.equal(await count("SELECT COUNT(*) AS n FROM passages WHERE email_id NOT LIKE 'old-closed%'"), 5);
  assert.equal(await count("SELECT COUNT(*) AS n FROM emails WHERE text_body = 'Body text'"), 5);
  // The purge itself is audited (the one audit row left besides it is not expired).
  assert.equal(await count("SELECT COUNT(*) AS n FROM audit_log WHERE event_type = 'retention_purged'"), 1);

  // Idempotent: nothing left to purge.
  const again = await purgeExpired({ batchSize: 2, dryRun: false, budgetMs: 60_000 });
  assert.deepEqual(again.purged, { raw_mail: 0, bodies: 0, replay: 0, passages: 0, audit: 0, access_log: 0 });
});

test('0 keeps forever; invalid settings are listed together', () => {
  const problems: string[] = [];
  const s = readRetention({ RETENTION_RAW_MAIL_DAYS: '0', RETENTION_AUDIT_DAYS: 'ten', RETENTION_ACCESS_LOG_DAYS: '-1' }, problems);
  assert.equal(s.rawMailDays, 0);
  assert.equal(problems.length, 2);
  assert.match(problems[0]!, /RETENTION_AUDIT_DAYS/);
  const order: string[] = [];
  readRetention({ RETENTION_RAW_MAIL_DAYS: '400', RETENTION_BODIES_DAYS: '30' }, order);
  assert.match(order[0]!, /must not exceed/);
});

test('a purge with every period 0 purges nothing', async () => {
  const { purgeExpired } = activities({ rawMailDays: 0, bodiesDays: 0, passagesDays: 0, auditDays: 0, accessLogDays: 0 });
  assert.deepEqual(await purgeExpired({ batchSize: 100, dryRun: false, budgetMs: 1000 }), { purged: {}, more: false });
});
