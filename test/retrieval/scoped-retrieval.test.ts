/**
 * Retrieval bounded by its scope, on the real MariaDB: the correspondent's relevant passage ranks
 * first among their many others, nobody else's mail (other correspondent, mailbox, account)
 * comes back, and every statement `retrieve` sends reads `passages` through a scope index, never
 * through the FULLTEXT index of the whole table (which made each draft cost grow with the index).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createFullTextIndex } from '../../src/retrieval/fulltext-index.mariadb';
import { migrate } from '../../src/platform/migrate.mariadb';
import type { Pool } from '../../src/platform/pool.mariadb';
import type { IndexableEmail, VectorIndex } from '../../src/retrieval/vector-index.port';
import { createTestDatabase } from '../support/database';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let index: VectorIndex;

const ACCOUNT = 'support@shop.example';
const base = { account: ACCOUNT, mailbox: 'INBOX', date: null };
const inbound = (
  emailId: string,
  fromAddress: string,
  subject: string,
  text: string,
  extra: Partial<IndexableEmail> = {},
): IndexableEmail => ({
  ...base,
  emailId,
  threadId: `t-${emailId}`,
  direction: 'in',
  fromAddress,
  subject,
  text,
  ...extra,
});

const ANNA = 'anna@kunde-a.example';
const BERT = 'bert@kunde-b.example';
const OFF_TOPIC = [
  'Bitte ändern Sie meine Lieferadresse auf die Hauptstraße 5.',
  'Wann kommt der Techniker zur Montage?',
  'Ich brauche ein Angebot für zehn Lizenzen.',
];

/** Many unrelated rows of other customers, so the optimizer sees a table worth indexing. */
async function seedFiller(pool: Pool, n: number): Promise<void> {
  const rows: unknown[][] = [];
  for (let i = 0; i < n; i++) {
    const correspondent = `filler-${i}@org${i % 40}.example`;
    rows.push([
      `filler-${i}`,
      0,
      ACCOUNT,
      'INBOX',
      `t-filler-${i}`,
      i % 4 === 0 ? 'out' : 'in',
      correspondent,
      correspondent,
      `org${i % 40}.example`,
      'Frage',
      `Heizung Thermostat Vorgang ${i}`,
    ]);
  }
  await pool.batch(
    `INSERT INTO passages (email_id, idx, account, mailbox, thread_id, direction, from_address, correspondent, organisation, title, text)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    rows,
  );
  await pool.query('ANALYZE TABLE passages');
}

before(async () => {
  db = await createTestDatabase('scoped');
  index = createFullTextIndex(db.pool);
  await seedFiller(db.pool, 3000);
  // Anna: one relevant earlier mail among many of hers on other topics.
  await index.index(
    inbound(
      'anna-relevant',
      ANNA,
      'Gutschrift fehlt',
      'Die Gutschrift für die doppelt abgebuchte Rechnung 4711 fehlt noch auf meinem Konto.',
    ),
  );
  for (let i = 0; i < 40; i++) await index.index(inbound(`anna-other-${i}`, ANNA, 'Anliegen', OFF_TOPIC[i % OFF_TOPIC.length]!));
  // The same words from someone else, in another mailbox, in another account: never Anna's context.
  const same = 'Die Gutschrift für die doppelt abgebuchte Rechnung fehlt noch auf meinem Konto.';
  await index.index(inbound('bert-same', BERT, 'Gutschrift fehlt', same));
  await index.index(inbound('anna-other-mailbox', ANNA, 'Gutschrift fehlt', same, { mailbox: 'Archiv' }));
  await index.index(inbound('anna-other-account', ANNA, 'Gutschrift fehlt', same, { account: 'info@shop.example' }));
  // Our reply to Bert: reusable wording, only ever masked.
  await index.index({
    ...inbound(
      'bert-reply',
      'support@shop.example',
      'Re: Gutschrift fehlt',
      'Sehr geehrter Herr Bert Beispiel, die Gutschrift ist veranlasst.',
    ),
    threadId: 't-bert-same',
    direction: 'out',
    toAddresses: [BERT],
  });
  await index.index({
    emailId: 'knowledge:gutschrift.md',
    threadId: 'knowledge:gutschrift.md',
    account: '',
    mailbox: '',
    direction: 'knowledge',
    fromAddress: '',
    subject: 'Gutschriften',
    text: 'Eine Gutschrift für eine doppelt abgebuchte Rechnung wird innerhalb von fünf Werktagen erstattet.',
    date: null,
  });
});
after(() => db?.drop());

const question = inbound(
  'anna-new',
  ANNA,
  'Wo bleibt die Gutschrift?',
  'Die Rechnung wurde doppelt abgebucht, die Gutschrift ist noch nicht da.',
);

test('the correspondent’s relevant passage ranks first; nobody else’s mail, mailbox or account comes back', async () => {
  const items = await index.retrieve(question, 8);
  const similar = items.filter((i) => i.kind === 'similar');
  assert.equal(similar[0]?.sourceId, 'anna-relevant', `first similar: ${similar.map((i) => i.sourceId).join(', ')}`);
  assert.ok(
    similar.every((i) => i.sourceId.startsWith('anna-other-') || i.sourceId === 'anna-relevant'),
    'similar only from Anna’s mail of this mailbox',
  );
  const ids = items.map((i) => i.sourceId);
  for (const foreign of ['bert-same', 'anna-other-mailbox', 'anna-other-account'])
    assert.ok(!ids.includes(foreign), `${foreign} must not come back`);
  assert.ok(
    !ids.some((id) => id.startsWith('filler-') && !items.find((i) => i.sourceId === id && i.kind === 'own_reply')),
    'filler only as masked reply',
  );
  const reply = items.find((i) => i.sourceId === 'bert-reply');
  assert.equal(reply?.kind, 'own_reply');
  assert.doesNotMatch(reply?.text ?? '', /Bert Beispiel/, 'our reply to Bert is masked');
  assert.ok(items.some((i) => i.kind === 'knowledge' && i.sourceId === 'knowledge:gutschrift.md#1'));
  assert.ok(items.some((i) => i.kind === 'sender' && i.sourceId.startsWith('anna-')));
});

test('a removed knowledge file is no longer found', async () => {
  await index.index({
    emailId: 'knowledge:alt.md',
    threadId: 'knowledge:alt.md',
    account: '',
    mailbox: '',
    direction: 'knowledge',
    fromAddress: '',
    subject: 'Alt',
    text: 'Zahnbürstenaufsatz Ersatzteilbestellung.',
    date: null,
  });
  const probe = inbound('kb-probe', ANNA, 'Zahnbürstenaufsatz', 'Zahnbürstenaufsatz Ersatzteilbestellung?');
  assert.ok((await index.retrieve(probe, 8)).some((i) => i.sourceId === 'knowledge:alt.md#1'));
  await index.remove?.('knowledge:alt.md');
  assert.ok(!(await index.retrieve(probe, 8)).some((i) => i.sourceId.startsWith('knowledge:alt.md')));
});

test('knowledge indexed before the knowledge table existed is found after the migration', async () => {
  // As the earlier adapter wrote it: only the row in `passages`.
  await db.pool.query(
    `INSERT INTO passages (email_id, idx, account, mailbox, thread_id, direction, from_address, correspondent, title, text)
     VALUES ('knowledge:vorher.md', 0, '', '', 'knowledge:vorher.md', 'knowledge', '', '', 'Vorher', 'Fahrradschlauchventil Austausch.')`,
  );
  await db.pool.query(`DELETE FROM schema_migrations WHERE version = '014_scoped_retrieval'`);
  assert.deepEqual((await migrate(db.url)).applied, ['014_scoped_retrieval'], 'the migration runs again over existing data');
  const probe = inbound('kb-before', ANNA, 'Fahrradschlauchventil', 'Wie tausche ich das Fahrradschlauchventil?');
  assert.ok((await index.retrieve(probe, 8)).some((i) => i.sourceId === 'knowledge:vorher.md#1'));
});

interface ExplainRow {
  table: string;
  type: string;
  key: string | null;
  Extra: string;
}

test('every statement of a retrieval reads passages through a scope index, never the FULLTEXT index', async () => {
  const sent: Array<{ sql: string; params: unknown[] }> = [];
  const recording = {
    query: (opts: { sql: string } | string, params: unknown[] = []) => {
      const sql = typeof opts === 'string' ? opts : opts.sql;
      if (/^\s*\(?\s*SELECT/i.test(sql)) sent.push({ sql, params });
      return db.pool.query(opts, params);
    },
  } as unknown as Pool;
  await createFullTextIndex(recording).retrieve(question, 8);
  assert.ok(sent.length >= 4, `statements recorded: ${sent.length}`);

  const scopeKeys = new Set(['ix_passages_correspondent_recent', 'ix_passages_organisation_recent', 'ix_passages_direction_recent']);
  const used = new Set<string>();
  for (const { sql, params } of sent) {
    const plan = (await db.pool.query(`EXPLAIN ${sql}`, params)) as ExplainRow[];
    for (const row of plan) {
      if (row.table === 'knowledge_passages') continue; // the knowledge folder's own full-text table
      const where = `${row.table} via ${row.key} (${row.type}, ${row.Extra}) in: ${sql.replace(/\s+/g, ' ')}`;
      assert.equal(row.table, 'passages', where);
      assert.notEqual(row.type, 'fulltext', where);
      assert.ok(row.key === 'ix_passages_thread' || scopeKeys.has(row.key ?? ''), `not a scope index: ${where}`);
      // A filesort would read the whole scope before the cap applies.
      if (scopeKeys.has(row.key!)) assert.doesNotMatch(row.Extra, /filesort/, where);
      used.add(row.key!);
    }
  }
  for (const key of scopeKeys) assert.ok(used.has(key), `${key} used (used: ${[...used].join(', ')})`);
});
