/**
 * Export and erasure of one correspondent across every store: MariaDB, the full-text index,
 * Qdrant and ArangoDB (their HTTP doubles, through the official clients) and a real Temporal dev
 * server. Afterwards every MariaDB text and blob column, every stored point and document and every
 * remaining workflow history (payloads decoded) is searched for the address, the name and a phrase
 * only their mail held.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { Connection, Client, WorkflowNotFoundError } from '@temporalio/client';
import { unzipSync } from 'fflate';
import { createArangoGraph } from '../../src/retrieval/thread-graph.arango';
import { createFullTextIndex } from '../../src/retrieval/fulltext-index.mariadb';
import { createMariaDbMessageStore } from '../../src/email/message-store.mariadb';
import { createQdrantIndex } from '../../src/retrieval/vector-index.qdrant';
import { auditAccess } from '../../src/privacy/audit-access.cli';
import { privacyErase, privacyExport } from '../../src/privacy/privacy.cli';
import { CliError } from '../../src/platform/cli-context';
import { createCompositeIndex } from '../../src/retrieval/composite-index';
import { loadConfig, type Config } from '../../src/config';
import { startArangoDouble, type ArangoDouble } from '../doubles/arango-double';
import { startQdrantDouble, type QdrantDouble } from '../doubles/qdrant-double';
import { createTestDatabase } from '../support/database';
import { HASH_EMBEDDER, seedPerson, type Person } from '../support/privacy-seed';
import { startTemporalDevServer, type TemporalDevServer } from '../support/services/temporal-dev-server';

const SARAH: Person = { name: 'Sarah Thompson', address: 'sarah.thompson@example.org', phrase: 'purple giraffe umbrella', key: 'sarah' };
const BOB: Person = { name: 'Robert Quist', address: 'bob@other.example', phrase: 'seven silver spoons', key: 'bob' };
const ARANGO = { username: 'root', password: 'arango-pw' };

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let temporal: TemporalDevServer;
let connection: Connection;
let client: Client;
let qdrant: QdrantDouble;
let arango: ArangoDouble;
let config: Config;
let dir: string;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-privacy-'));
  db = await createTestDatabase('privacy');
  temporal = await startTemporalDevServer({ dataDir: path.join(dir, 'temporal'), headless: true });
  connection = await Connection.connect({ address: temporal.address });
  client = new Client({ connection, namespace: 'default' });
  qdrant = await startQdrantDouble();
  arango = await startArangoDouble(ARANGO);
  config = loadConfig(
    {
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: temporal.address,
      QDRANT_URL: qdrant.url,
      ARANGO_URL: arango.url,
      ARANGO_USER: ARANGO.username,
      ARANGO_PASSWORD: ARANGO.password,
      EMBEDDER: 'remote',
      EMBEDDING_BASE_URL: 'http://127.0.0.1:9/v1',
      EMBEDDING_MODEL: HASH_EMBEDDER.model,
    },
    { imap: false },
  );
});

after(async () => {
  await connection?.close();
  await qdrant?.stop();
  await arango?.stop();
  await temporal?.stop();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

function seedIndex() {
  return createCompositeIndex({
    primary: createFullTextIndex(db.pool, { embedder: HASH_EMBEDDER }),
    embedder: HASH_EMBEDDER,
    vector: createQdrantIndex({ ...config.qdrant!, embedder: HASH_EMBEDDER }),
    graph: createArangoGraph({ url: arango.url, databaseName: 'email_rag', ...ARANGO }),
    messages: createMariaDbMessageStore(db.pool),
    onDegraded: () => Promise.resolve(),
  });
}

/** Every place in MariaDB where one of `terms` is still found: `table.column: term`. */
async function mariaDbMentions(terms: string[]): Promise<string[]> {
  const columns = (await db.pool.query(
    `SELECT TABLE_NAME AS t, COLUMN_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()
      AND DATA_TYPE IN ('char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext', 'json', 'tinyblob', 'blob', 'mediumblob', 'longblob', 'binary', 'varbinary')`,
  )) as Array<{ t: string; c: string }>;
  const found: string[] = [];
  for (const { t, c } of columns) {
    for (const term of terms) {
      // Blobs compare bytes (case-sensitive): the raw mail holds the terms as written.
      const rows = (await db.pool.query(`SELECT COUNT(*) AS n FROM \`${t}\` WHERE LOWER(CONVERT(\`${c}\` USING utf8mb4)) LIKE ?`, [
        `%${term.toLowerCase()}%`,
      ])) as Array<{ n: bigint }>;
      if (Number(rows[0]!.n) > 0) found.push(`${t}.${c}: ${term}`);
    }
  }
  return found;
}

/** Every string in a history, payload bytes decoded as UTF-8 (the JSON the default converter wrote). */
function texts(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('utf8'));
  else if (value && typeof value === 'object') for (const v of Object.values(value)) texts(v, out);
  return out;
}

/** Every remaining workflow history, payloads decoded as text. */
async function temporalMentions(terms: string[]): Promise<string[]> {
  const found: string[] = [];
  for await (const wf of client.workflow.list()) {
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    const text = texts(history).join('\n');
    for (const term of terms) if (text.toLowerCase().includes(term.toLowerCase())) found.push(`${wf.workflowId}: ${term}`);
  }
  return found;
}

function storeMentions(terms: string[]): string[] {
  const found: string[] = [];
  const scan = (where: string, items: unknown[]) => {
    for (const item of items) {
      const text = JSON.stringify(item).toLowerCase();
      for (const term of terms) if (text.includes(term.toLowerCase())) found.push(`${where}: ${term}`);
    }
  };
  scan('qdrant', qdrant.payloads());
  scan('arango', arango.documents());
  return found;
}

const termsOf = (p: Person) => [p.address, p.name, p.name.split(' ')[1]!, p.phrase];

/** True once Temporal no longer has the execution (deletion is asynchronous: waits up to two minutes). */
async function gone(workflowId: string, waitMs = 120_000): Promise<boolean> {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      await client.workflow.getHandle(workflowId).describe();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return true;
      throw err;
    }
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 250));
  }
}

test('export, refusal while a send is in doubt, erasure; nothing of the address is left in any store, the other customer keeps everything', async () => {
  const index = seedIndex();
  const sarah = await seedPerson(db.pool, index, client, SARAH, 12);
  const bob = await seedPerson(db.pool, index, client, BOB, 3);
  // Bob's mail copies Sarah in and quotes her address: a mention outside her own rows.
  await db.pool.query(`UPDATE emails SET cc_addresses = ?, text_body = CONCAT(text_body, ?) WHERE id = ?`, [
    SARAH.address,
    `\nPlease also tell ${SARAH.address}.`,
    bob.emailIds[0],
  ]);
  // One of her executions already closed: deleted as well.
  await client.workflow.getHandle(sarah.emailIds[1]!).terminate('closed before the erasure');
  await db.pool.query(`UPDATE send_attempts SET status = 'in_doubt' WHERE email_id = ?`, [sarah.emailIds[2]]);
  assert.ok((await mariaDbMentions(termsOf(SARAH))).length > 10);
  assert.ok(storeMentions(termsOf(SARAH)).length > 0);
  assert.ok((await temporalMentions(termsOf(SARAH))).length > 0);

  // Export: one zip with data.json, one .eml per email and each attachment as a file.
  const out = path.join(dir, 'exports');
  const exported = await privacyExport(config, ' Sarah.Thompson@Example.org ', { out, by: 'dpo-anna' });
  assert.equal(exported.emails, 12);
  assert.equal(exported.rawMessages, 12);
  const zip = unzipSync(readFileSync(exported.file));
  assert.equal(Object.keys(zip).filter((n) => n.endsWith('.eml')).length, 12);
  const data = JSON.parse(Buffer.from(zip['data.json']!).toString('utf8')) as Record<string, unknown[]>;
  for (const kind of ['emails', 'drafts', 'sendAttempts', 'passages', 'cases', 'caseEvents', 'audit']) {
    assert.ok((data[kind] ?? []).length > 0, `export has no ${kind}`);
  }
  assert.ok(!JSON.stringify(data).includes(BOB.phrase), 'the export holds another customer’s mail');
  // Each email's attachment (seeded in two chunks) as a file of the zip, named in its row.
  assert.equal(exported.attachments, 12);
  const attached = data.attachments as Array<{ filename: string; file: string; size: number }>;
  assert.equal(attached.length, 12);
  for (const a of attached) {
    assert.equal(a.filename, 'invoice-sarah.txt');
    assert.match(a.file, /^attachments\/.+\/1-invoice-sarah\.txt$/);
    const bytes = Buffer.from(zip[a.file]!);
    assert.equal(bytes.length, a.size);
    assert.ok(bytes.toString().includes(SARAH.phrase));
  }
  assert.equal(data.attachmentTexts?.length, 12);
  assert.ok(
    Buffer.from(zip[Object.keys(zip).find((n) => n.endsWith('.eml'))!]!)
      .toString()
      .includes(SARAH.phrase),
  );

  // A send in doubt: refused without --force, nothing erased, the refusal audited.
  await assert.rejects(
    privacyErase(config, SARAH.address, { by: 'dpo-anna', force: false, dryRun: false }),
    (err: unknown) => err instanceof CliError && err.exitCode === 5 && /in doubt/.test(err.message),
  );
  assert.equal(
    Number(
      ((await db.pool.query('SELECT COUNT(*) AS n FROM emails WHERE from_address = ?', [SARAH.address])) as Array<{ n: bigint }>)[0]!.n,
    ),
    12,
  );
  const dry = await privacyErase(config, SARAH.address, { by: 'dpo-anna', force: false, dryRun: true });
  assert.equal(dry.emails, 12);
  assert.equal(dry.unsettledSends.length, 1);

  const erased = await privacyErase(config, SARAH.address, { by: 'dpo-anna', force: true, dryRun: false });
  assert.equal(erased.emails, 12);
  assert.equal(erased.counts.workflows_deleted, 13);
  const deleting = Date.now();
  for (const id of [...sarah.emailIds, sarah.caseId]) assert.ok(await gone(id), `${id} still in Temporal`);
  console.log(`temporal: 13 executions gone ${Date.now() - deleting} ms after the erasure returned`);

  // Nothing of her anywhere: MariaDB (every text and blob column), Qdrant, ArangoDB, Temporal.
  assert.deepEqual(await mariaDbMentions(termsOf(SARAH)), []);
  assert.deepEqual(storeMentions(termsOf(SARAH)), []);
  assert.deepEqual(await temporalMentions(termsOf(SARAH)), []);

  // Bob keeps everything.
  assert.ok((await mariaDbMentions([BOB.phrase])).some((m) => m.startsWith('emails.text_body')));
  assert.ok(storeMentions([BOB.phrase]).some((m) => m.startsWith('qdrant')));
  assert.ok(!(await gone(bob.emailIds[0]!, 0)));
  assert.ok((await temporalMentions([BOB.phrase])).length >= 3);

  // The audit trail keeps the facts: events of her emails, the erasure by hash, who did it.
  const facts = (await db.pool.query(`SELECT event_type, message, actor, details FROM audit_log WHERE email_id = ?`, [
    sarah.emailIds[0],
  ])) as Array<{
    event_type: string;
    message: string;
  }>;
  assert.deepEqual(
    facts.map((f) => [f.event_type, f.message]),
    [['draft_created', '[erased]']],
  );
  const row = (
    (await db.pool.query(`SELECT actor, details FROM audit_log WHERE event_type = 'privacy_erased'`)) as Array<{
      actor: string;
      details: string;
    }>
  )[0]!;
  assert.equal(row.actor, 'dpo-anna');
  assert.equal(JSON.parse(row.details).addressHash, erased.addressHash);
  const access = await auditAccess(config, { user: 'dpo-anna' });
  assert.deepEqual(access.map((a) => a.action).sort(), ['privacy_erase', 'privacy_export']);

  // Idempotent: a second run finds nothing new and changes nothing.
  const again = await privacyErase(config, SARAH.address, { by: 'dpo-anna', force: false, dryRun: false });
  assert.equal(again.counts.emails, 0);
  assert.deepEqual(await mariaDbMentions(termsOf(SARAH)), []);
  assert.deepEqual(qdrant.unhandled, []);
  assert.deepEqual(arango.unhandled, []);
});

test('an erasure that stopped half-way is finished by the next run', async () => {
  const p: Person = { name: 'Jana Kowalski', address: 'jana@web.example', phrase: 'blue heron teapot', key: 'jana' };
  const seeded = await seedPerson(db.pool, seedIndex(), client, p, 4);
  // Qdrant is down: Temporal is done, the indexes fail, MariaDB is untouched.
  qdrant.down(true);
  await assert.rejects(privacyErase(config, p.address, { by: 'dpo-anna', force: false, dryRun: false }), /Qdrant/);
  qdrant.down(false);
  for (const id of seeded.emailIds) assert.ok(await gone(id));
  const r = await privacyErase(config, p.address, { by: 'dpo-anna', force: false, dryRun: false });
  assert.equal(r.resumed, true);
  assert.equal(r.emails, 4);
  assert.deepEqual(await mariaDbMentions(termsOf(p)), []);
  assert.deepEqual(storeMentions(termsOf(p)), []);
});

test('hostile input: not an address, a LIKE wildcard, no --by', async () => {
  for (const bad of ['%', 'Sarah <sarah@example.org>', '', 'a@b']) {
    await assert.rejects(
      privacyErase(config, bad, { by: 'x', force: false, dryRun: true }),
      (err: unknown) => err instanceof CliError && err.exitCode === 2,
      bad,
    );
  }
  await assert.rejects(privacyErase(config, 'bob@other.example', { by: ' ', force: false, dryRun: false }), /--by/);
});

test('the time to erase one correspondent with 1,000 emails', async () => {
  const p: Person = { name: 'Lucía Fernández', address: 'lucia@correo.example', phrase: 'orange lantern festival', key: 'lucia' };
  const seeding = Date.now();
  const seeded = await seedPerson(db.pool, seedIndex(), client, p, 1000);
  const seededMs = Date.now() - seeding;
  const r = await privacyErase(config, p.address, { by: 'dpo-anna', force: false, dryRun: false });
  assert.equal(r.emails, 1000);
  assert.equal(r.counts.workflows_deleted, 1001);
  const deleting = Date.now();
  for (const id of [seeded.caseId, ...seeded.emailIds.slice(-5)]) assert.ok(await gone(id, 600_000), `${id} still in Temporal`);
  const goneMs = Date.now() - deleting;
  console.log(
    `erasure of 1,000 emails: ${r.ms} ms (MariaDB, full-text index, Qdrant and ArangoDB doubles, 1,001 Temporal deletions requested); ` +
      `Temporal had removed the executions ${goneMs} ms later; seeding took ${seededMs} ms`,
  );
  assert.deepEqual(await mariaDbMentions([p.address, p.phrase]), []);
  assert.deepEqual(storeMentions([p.address, p.phrase]), []);
});
