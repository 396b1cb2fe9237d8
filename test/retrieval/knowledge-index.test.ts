/**
 * The knowledge folder's nearest-neighbour index (USearch) with the real MariaDB: built from the
 * vectors MariaDB stores, saved to a file and loaded again, rebuilt when the file is of another
 * model or older than the log reaches, kept current across processes by the change log, and past
 * the old in-process cap of 5,000 passages every passage is still found by its vector.
 *
 * The embedder is a TEST DOUBLE (bag-of-words hashed into 256 buckets, test/doubles/
 * embeddings-double.ts): 6,000 passages with the real model would take minutes, and what is under
 * test is the index, not the model. The real embedder's retrieval is tested in
 * vector-retrieval.test.ts and measured in scripts/bench/retrieval.ts --growth.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createFullTextIndex } from '../../src/retrieval/fulltext-index.mariadb';
import { setTimeout as sleep } from 'node:timers/promises';
import { createKnowledgeNeighbours, GATE_SAMPLE, LOG_CHECK_MS, pruneKnowledgeLog } from '../../src/retrieval/knowledge-neighbours.mariadb';
import type { NearestNeighboursLibrary } from '../../src/retrieval/nearest-neighbours.port';
import { usearchLibrary } from '../../src/retrieval/nearest-neighbours.usearch';
import { estimatedFrequency, informativeQuery } from '../../src/retrieval/informative-terms';
import { createKnowledgeTermSample } from '../../src/retrieval/knowledge-term-sample.mariadb';
import type { Embedder } from '../../src/retrieval/embedder.port';
import type { IndexableEmail } from '../../src/retrieval/vector-index.port';
import { knowledgeEntry as knowledge } from '../support/knowledge-entry';
import { encodeVector } from '../../src/retrieval/vectors';
import { bagOfWordsVector } from '../doubles/embeddings-double';
import { createTestDatabase } from '../support/database';
import { createPool } from '../../src/platform/pool.mariadb';

const DIMS = 256;
const PASSAGES = 6_000;

/** TEST DOUBLE embedder: deterministic, in process. */
const hashed = (model: string): Embedder => ({
  model,
  embed: (texts) => Promise.resolve(texts.map((t) => bagOfWordsVector(t, DIMS))),
});
const embedder = hashed('hashed-256');

/** A library that counts builds and loads, so a test can tell a loaded index from a rebuilt one. */
function counting() {
  const counts = { created: 0, loaded: 0 };
  const library: NearestNeighboursLibrary = {
    kind: usearchLibrary.kind,
    create: (d) => (counts.created++, usearchLibrary.create(d)),
    load: (f) => (counts.loaded++, usearchLibrary.load(f)),
  };
  return { counts, library };
}

/** A filler passage: words of its own, so no two vectors coincide. */
const filler = (n: number) => `Artikel ${n}: Hinweis wort${n} begriff${n * 7} thema${n % 97} abschnitt${n % 13} version${n % 5}.`;
const TARGET = 5_900;
const targetText = 'Die Kaffeemaschine entkalken Sie mit Zitronensäure alle vier Wochen, danach zweimal mit klarem Wasser spülen.';

const ask = (question: string, n: number): IndexableEmail => ({
  emailId: `q-${n}`,
  threadId: `t-q-${n}`,
  account: 'support@shop.example',
  mailbox: 'INBOX',
  direction: 'in',
  fromAddress: `frage-${n}@neu.example`,
  subject: '',
  text: question,
  date: null,
});

let db: Awaited<ReturnType<typeof createTestDatabase>>;
const dir = mkdtempSync(path.join(tmpdir(), 'email-rag-knowledge-index-'));

before(async () => {
  db = await createTestDatabase('knn');
  // 6,000 passages stored as the index writes them, seeded in bulk: the sync would take minutes.
  for (let from = 0; from < PASSAGES; from += 500) {
    const rows = Array.from({ length: Math.min(500, PASSAGES - from) }, (_, i) => {
      const n = from + i;
      const text = n === TARGET ? targetText : filler(n);
      return [`knowledge:artikel-${n}.md`, 0, `artikel-${n}.md`, text, encodeVector(bagOfWordsVector(text, DIMS)), embedder.model];
    });
    await db.pool.query(
      `INSERT INTO knowledge_passages (source_id, idx, title, text, embedding, embedding_model) VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
      rows.flat(),
    );
  }
});
after(async () => {
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const knowledgeIds = async (index: ReturnType<typeof createFullTextIndex>, question: string, n: number) =>
  (await index.retrieve(ask(question, n), 8)).filter((i) => i.kind === 'knowledge').map((i) => i.sourceId);

describe('the knowledge folder’s nearest-neighbour index', () => {
  test('past the old cap of 5,000: passage 5,900 of 6,000 is found by its vector alone', async () => {
    const index = createFullTextIndex(db.pool, { embedder, method: 'vectors', minCosine: 0.3, knowledgeIndex: { dir } });
    const found = await knowledgeIds(index, 'Wie soll ich die Kaffeemaschine entkalken? Mit Zitronensäure?', 1);
    assert.equal(found[0], `knowledge:artikel-${TARGET}.md#1`, `found: ${found.join(', ')}`);
  });

  test('full text searches with the mail’s rare words: words every passage holds are left out, the passage is found by its own', async () => {
    const df = await createKnowledgeTermSample(db.pool).frequencies();
    assert.equal(df.passages, PASSAGES);
    // Every filler passage holds "Artikel" and "Hinweis"; the sample is 2,000 of the 6,000.
    assert.ok(estimatedFrequency(df, 'hinweis') > 4_000, `hinweis: ${estimatedFrequency(df, 'hinweis')}`);
    const question = 'Hinweis zum Artikel: wie soll ich die Kaffeemaschine entkalken?';
    const words = informativeQuery(question, df).split(' ');
    assert.ok(words.includes('kaffeemaschine') && !words.includes('hinweis') && !words.includes('artikel'), words.join(' '));
    const index = createFullTextIndex(db.pool, { method: 'words' });
    assert.equal((await knowledgeIds(index, question, 20))[0], `knowledge:artikel-${TARGET}.md#1`);
  });

  test('built from MariaDB and saved; a second process loads the file instead of building', async () => {
    const first = counting();
    const a = createKnowledgeNeighbours(db.pool, {
      model: embedder.model,
      library: first.library,
      dir: path.join(dir, 'reload'),
      warnPassages: 1e6,
    });
    await a.current();
    assert.deepEqual([first.counts, a.size()], [{ created: 1, loaded: 0 }, PASSAGES]);
    const file = path.join(dir, 'reload', 'knowledge-hashed-256.usearch');
    assert.ok(existsSync(file) && existsSync(`${file}.json`));
    assert.equal(JSON.parse(readFileSync(`${file}.json`, 'utf8')).passages, PASSAGES);

    const second = counting();
    const b = createKnowledgeNeighbours(db.pool, {
      model: embedder.model,
      library: second.library,
      dir: path.join(dir, 'reload'),
      warnPassages: 1e6,
    });
    const probe = bagOfWordsVector(targetText, DIMS);
    const [hit] = await b.nearest(probe, 1);
    assert.deepEqual(second.counts, { created: 0, loaded: 1 });
    // The word gate's sample of the folder is the same whether the index was built or loaded.
    assert.deepEqual(b.background(probe, new Set()), a.background(probe, new Set()));
    assert.equal(b.background(probe, new Set()).length, GATE_SAMPLE);
    const [row] = (await db.pool.query('SELECT source_id FROM knowledge_passages WHERE id = ?', [hit!.id])) as Array<{ source_id: string }>;
    assert.equal(row!.source_id, `knowledge:artikel-${TARGET}.md`);
  });

  test('another model: its own index, built from that model’s vectors only', async () => {
    const other = hashed('hashed-256-v2');
    await db.pool.query('UPDATE knowledge_passages SET embedding_model = ? WHERE source_id IN (?, ?)', [
      other.model,
      'knowledge:artikel-1.md',
      'knowledge:artikel-2.md',
    ]);
    try {
      const c = counting();
      const v2 = createKnowledgeNeighbours(db.pool, {
        model: other.model,
        library: c.library,
        dir: path.join(dir, 'reload'),
        warnPassages: 1e6,
      });
      await v2.current();
      assert.deepEqual([c.counts.created, c.counts.loaded, v2.size()], [1, 0, 2]);
    } finally {
      await db.pool.query('UPDATE knowledge_passages SET embedding_model = ? WHERE source_id IN (?, ?)', [
        embedder.model,
        'knowledge:artikel-1.md',
        'knowledge:artikel-2.md',
      ]);
    }
  });

  test('a file of another library or settings is not loaded: rebuilt', async () => {
    const c = counting();
    const other: NearestNeighboursLibrary = { ...c.library, kind: `${usearchLibrary.kind}-other` };
    const x = createKnowledgeNeighbours(db.pool, {
      model: embedder.model,
      library: other,
      dir: path.join(dir, 'reload'),
      warnPassages: 1e6,
    });
    await x.current();
    assert.deepEqual(c.counts, { created: 1, loaded: 0 });
  });

  test('one process adds and removes knowledge; another process’s index catches up by the log, and so does a stale file', async () => {
    const shared = path.join(dir, 'shared');
    const writer = createFullTextIndex(db.pool, { embedder, method: 'vectors', minCosine: 0.3, knowledgeIndex: { dir: shared } });
    const reader = createFullTextIndex(db.pool, {
      embedder,
      method: 'vectors',
      minCosine: 0.3,
      knowledgeIndex: { dir: path.join(dir, 'reader') },
    });
    const question = 'Wann wird das Schwimmbad im Winter beheizt?';
    assert.ok(!(await knowledgeIds(reader, question, 2)).includes('knowledge:schwimmbad.md#1'));

    await writer.index(knowledge('schwimmbad.md', 'Das Schwimmbad wird im Winter ab sieben Uhr beheizt.'));
    await writer.remove!(`knowledge:artikel-${TARGET}.md`);
    // The reader read the log's newest entry at its first search: it reads it again after LOG_CHECK_MS.
    await sleep(LOG_CHECK_MS + 50);
    assert.equal((await knowledgeIds(reader, question, 3))[0], 'knowledge:schwimmbad.md#1');
    const gone = await knowledgeIds(reader, 'Wie soll ich die Kaffeemaschine entkalken? Mit Zitronensäure?', 4);
    assert.ok(!gone.includes(`knowledge:artikel-${TARGET}.md#1`), `removed passage still found: ${gone.join(', ')}`);

    // The reader's file was saved at its build, before the change: a restart loads it and catches up.
    const c = counting();
    const restarted = createKnowledgeNeighbours(db.pool, {
      model: embedder.model,
      library: c.library,
      dir: path.join(dir, 'reader'),
      warnPassages: 1e6,
    });
    await restarted.current();
    assert.deepEqual([c.counts.created, c.counts.loaded, restarted.size()], [0, 1, PASSAGES]);
    const idOf = async (source: string) =>
      Number(
        (
          (await db.pool.query(
            'SELECT id FROM knowledge_vector_log l JOIN knowledge_passages p ON p.id = l.passage_id WHERE p.source_id = ? LIMIT 1',
            [source],
          )) as Array<{ id: unknown }>
        )[0]?.id,
      );
    assert.ok(restarted.contains(await idOf('knowledge:schwimmbad.md')), 'the added passage is in the restarted index');
  });

  test('the log’s newest entry is read once per LOG_CHECK_MS: another process sees a change after it, the writer at once', async () => {
    // Another process: another pool on the same database.
    const other = createPool(db.url, 2);
    try {
      const open = (pool: typeof db.pool, logCheckMs?: number) =>
        createKnowledgeNeighbours(pool, { model: embedder.model, library: usearchLibrary, warnPassages: 1e6, logCheckMs });
      const writer = open(db.pool, 600_000);
      const patient = open(other, 600_000);
      const reader = open(other);
      for (const k of [writer, patient, reader]) await k.current();

      await createFullTextIndex(db.pool, { embedder }).index(
        knowledge('kegelbahn.md', 'Die Kegelbahn ist am Sonntag von zehn bis achtzehn Uhr geöffnet.'),
      );
      const [row] = (await db.pool.query(
        "SELECT id FROM knowledge_passages WHERE source_id = 'knowledge:kegelbahn.md' AND idx = 0",
      )) as Array<{ id: unknown }>;
      const id = Number(row!.id);
      // The process that wrote reads the log again at once, whatever its check interval.
      await writer.current();
      assert.equal(writer.contains(id), true, 'the writer sees its own change at once');
      // Within its check interval another process trusts the newest entry it read: no query, no catch-up.
      await patient.current();
      assert.equal(patient.contains(id), false, 'read again within the check interval');
      await sleep(LOG_CHECK_MS + 50);
      await reader.current();
      assert.equal(reader.contains(id), true, 'another process sees the change after LOG_CHECK_MS');
    } finally {
      await other.end();
    }
  });

  test('a saved position that does not vouch for the index file beside it (another process saved at once) is rebuilt', async () => {
    const pair = path.join(dir, 'pair');
    await createKnowledgeNeighbours(db.pool, { model: embedder.model, library: usearchLibrary, dir: pair, warnPassages: 1e6 }).current();
    const meta = path.join(pair, 'knowledge-hashed-256.usearch.json');
    writeFileSync(meta, JSON.stringify({ ...JSON.parse(readFileSync(meta, 'utf8')), sha256: '0'.repeat(64) }));
    const c = counting();
    await createKnowledgeNeighbours(db.pool, { model: embedder.model, library: c.library, dir: pair, warnPassages: 1e6 }).current();
    assert.deepEqual(c.counts, { created: 1, loaded: 1 });
  });

  test('a file older than the log reaches (entries pruned) is rebuilt, not trusted', async () => {
    const stale = path.join(dir, 'stale');
    await createKnowledgeNeighbours(db.pool, { model: embedder.model, library: usearchLibrary, dir: stale, warnPassages: 1e6 }).current();
    const writer = createFullTextIndex(db.pool, { embedder, knowledgeIndex: { dir: stale } });
    await writer.index(knowledge('sauna.md', 'Die Sauna ist montags geschlossen.'));
    await db.pool.query('UPDATE knowledge_vector_log SET logged_at = NOW(3) - INTERVAL 60 DAY');
    await writer.index(knowledge('sauna.md', 'Die Sauna ist montags und dienstags geschlossen.'));
    await pruneKnowledgeLog(db.pool);
    const c = counting();
    const restarted = createKnowledgeNeighbours(db.pool, { model: embedder.model, library: c.library, dir: stale, warnPassages: 1e6 });
    await restarted.current();
    assert.deepEqual([c.counts.created, c.counts.loaded], [1, 0]);
  });

  test('past RETRIEVAL_KNOWLEDGE_WARN_PASSAGES: every passage is still searched, and the warning is given once', async () => {
    const large: number[] = [];
    const k = createKnowledgeNeighbours(db.pool, {
      model: embedder.model,
      library: usearchLibrary,
      warnPassages: 1_000,
      onLarge: (n) => large.push(n),
    });
    await k.current();
    assert.equal(large.length, 1);
    assert.ok(large[0]! > 1_000, `warned at ${large[0]}`);
    assert.ok(k.size() >= PASSAGES, `searched: ${k.size()}`);
  });
});
