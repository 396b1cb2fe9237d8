/**
 * The knowledge folder's vectors as a nearest-neighbour index (nearest-neighbours.port.ts), kept
 * current with MariaDB, which stays the source of truth (`knowledge_passages.embedding`).
 *
 * Each process keeps its own index, and keeps it current by sequence number: every write or
 * removal of a knowledge passage appends the passage's id to `knowledge_vector_log`
 * (logKnowledgeChanges), and before a search the process reads the log's newest `seq` (one primary
 * key lookup) and, when it moved, re-reads just the logged passages. The index is saved to a file
 * with the model, the library's settings and the `seq` it is current to; a process that starts
 * loads it and catches up from there, and rebuilds from MariaDB when the file is missing,
 * unreadable, of another model or library, or older than the log still reaches back.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '../platform/logger';
import { query, type Pool } from '../platform/pool.mariadb';
import { errorMessage } from '../platform/errors';
import type { NearestNeighbours, NearestNeighboursLibrary } from './nearest-neighbours.port';
import { cosine, decodeVector } from './vectors';

const logger = createLogger('knowledge-index');

/** Rows per read while building: bounded statements and memory, however large the folder. */
const BUILD_PAGE = 2_000;
/** Log entries re-read below the watermark on every catch-up: a write committed out of `seq` order is not missed. */
const REPLAY = 256;
/** The file is rewritten at most this often after catch-ups (always after a build). */
const SAVE_EVERY_MS = 60_000;
/** Vectors kept as the folder's sample for the word gate's median (all of a folder up to this size). */
export const GATE_SAMPLE = 512;
/** Log entries older than this are pruned by the knowledge sync; a file older than the log's reach is rebuilt. */
export const LOG_KEEP_DAYS = 30;
/**
 * How long the log's newest `seq` read before a search is trusted without reading it again. Every
 * draft searches the folder, and under load drafts come in the tens a second: one query each for a
 * log that changes a few times a day is waste. A second is far below how fast anyone notices a
 * changed help-centre article, and bounds how stale another process's index can be.
 */
export const LOG_CHECK_MS = 1_000;

/**
 * Log writes through each pool of this process: an index reads the log again at once after one, so
 * the process that changed the folder (the sync, the backfill, another index on the same pool)
 * sees its own change without waiting LOG_CHECK_MS.
 */
const logWrites = new WeakMap<Pool, number>();
const writesThrough = (pool: Pool) => logWrites.get(pool) ?? 0;

export interface KnowledgeNeighboursOptions {
  model: string;
  library: NearestNeighboursLibrary;
  /** Where the index file is kept; without it the index lives in memory only (built at start). */
  dir?: string;
  /** Past this many passages the index warns, loudly and once per process (`onLarge`), and goes on. */
  warnPassages: number;
  onLarge?: (passages: number) => void;
  /** How long a read of the log's newest `seq` is trusted (LOG_CHECK_MS; 0: read before every search). */
  logCheckMs?: number;
}

interface Meta {
  model: string;
  kind: string;
  seq: number;
  passages: number;
  /** The index file's SHA-256: processes sharing the folder may save at once, and a meta must not vouch for another's index. */
  sha256?: string;
}

const sha256Of = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

export interface KnowledgeHit {
  id: number;
  cosine: number;
}

export function createKnowledgeNeighbours(pool: Pool, options: KnowledgeNeighboursOptions) {
  const { model, library } = options;
  const slug = model.replace(/[^A-Za-z0-9._-]+/g, '_');
  const file = options.dir ? path.join(options.dir, `knowledge-${slug}.usearch`) : undefined;
  let index: NearestNeighbours | null = null;
  let seq = 0;
  let savedAt = 0;
  let dirty = false;
  let warned = false;
  let chain: Promise<void> = Promise.resolve();
  const logCheckMs = options.logCheckMs ?? LOG_CHECK_MS;
  /** The last read of the log's newest `seq`, shared by the searches within LOG_CHECK_MS. */
  let checked: { at: number; writes: number; newest: Promise<number> } | null = null;
  /** A sample of the folder's vectors by id (the first GATE_SAMPLE, then whatever frees a place), for rankHybrid's gate. */
  const sample = new Map<number, Float32Array>();
  /** Log entries applied within the replay window: replayed ones are skipped, not removed and added again (that churns the graph). */
  const applied = new Set<number>();

  const newestSeq = async (): Promise<number> => {
    const [row] = await query<Array<{ s: unknown }>>(
      pool,
      'reading the knowledge index log',
      'SELECT MAX(seq) AS s FROM knowledge_vector_log',
    );
    return Number(row?.s ?? 0);
  };

  /** The whole index from MariaDB, page by page by id; `seq` read first so nothing written meanwhile is missed. */
  async function build(): Promise<void> {
    const started = Date.now();
    seq = await newestSeq();
    index = null;
    sample.clear();
    // What the build read includes every entry up to `seq`.
    applied.clear();
    let after = 0;
    for (;;) {
      const rows = await query<Array<{ id: unknown; embedding: Buffer | null }>>(
        pool,
        'reading the knowledge folder’s vectors',
        'SELECT id, embedding FROM knowledge_passages WHERE embedding_model = ? AND id > ? ORDER BY id LIMIT ?',
        [model, after, BUILD_PAGE],
      );
      if (rows.length === 0) break;
      apply(rows.map((r) => ({ id: Number(r.id), vector: decodeVector(r.embedding) })));
      after = Number(rows[rows.length - 1]!.id);
    }
    logger.info('knowledge index built', { model, passages: index ? (index as NearestNeighbours).size() : 0, ms: Date.now() - started });
    dirty = true;
    save(true);
  }

  /** Puts these passages' vectors in the index (null: the passage is gone or has no vector of the model). */
  function apply(rows: Array<{ id: number; vector: Float32Array | null }>): void {
    const present = rows.filter((r) => r.vector && r.vector.length > 0);
    if (!index && present.length > 0) index = library.create(present[0]!.vector!.length);
    if (!index) return;
    const dims = index.dimensions;
    const fit = present.filter((r) => r.vector!.length === dims);
    const kept = new Set(fit);
    index.remove(rows.filter((r) => !kept.has(r)).map((r) => r.id));
    for (const r of rows) sample.delete(r.id);
    for (const r of fit) if (sample.size < GATE_SAMPLE) sample.set(r.id, r.vector!);
    index.upsert(
      fit.map((r) => r.id),
      fit.map((r) => r.vector!),
    );
    if (index.size() > options.warnPassages && !warned) {
      warned = true;
      logger.warn('KNOWLEDGE INDEX PAST ITS PLANNED SIZE: every passage is still searched, but memory grows with it', {
        passages: index.size(),
        warnPassages: options.warnPassages,
      });
      options.onLarge?.(index.size());
    }
    dirty = true;
  }

  /** Re-reads the passages logged since `seq` (and a few before, see REPLAY). */
  async function catchUp(upTo: number): Promise<void> {
    let from = Math.max(0, seq - REPLAY);
    while (from < upTo) {
      const logged = await query<Array<{ seq: unknown; passage_id: unknown }>>(
        pool,
        'reading the knowledge index log',
        'SELECT seq, passage_id FROM knowledge_vector_log WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?',
        [from, upTo, BUILD_PAGE],
      );
      if (logged.length === 0) break;
      from = Number(logged[logged.length - 1]!.seq);
      const fresh = logged.filter((l) => !applied.has(Number(l.seq)));
      for (const l of fresh) applied.add(Number(l.seq));
      if (fresh.length === 0) continue;
      const ids = [...new Set(fresh.map((l) => Number(l.passage_id)))];
      const rows = await query<Array<{ id: unknown; embedding: Buffer | null; embedding_model: string | null }>>(
        pool,
        'reading changed knowledge vectors',
        `SELECT id, embedding, embedding_model FROM knowledge_passages WHERE id IN (${ids.map(() => '?').join(', ')})`,
        ids,
      );
      const byId = new Map(rows.map((r) => [Number(r.id), r.embedding_model === model ? decodeVector(r.embedding) : null]));
      apply(ids.map((id) => ({ id, vector: byId.get(id) ?? null })));
    }
    seq = Math.max(seq, upTo);
    for (const n of applied) if (n <= seq - REPLAY) applied.delete(n);
    save(false);
  }

  /**
   * Writes index and meta beside each other, each through a rename, so a reader sees whole files;
   * the meta carries the index's hash, so a pair from two processes saving at once is not trusted.
   */
  function save(now: boolean): void {
    if (!file || !dirty || (!now && Date.now() - savedAt < SAVE_EVERY_MS)) return;
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      const meta: Meta = { model, kind: library.kind, seq, passages: index?.size() ?? 0 };
      // Unique per writer: replicas sharing a volume may run under the same pid.
      const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      if (index) {
        index.save(tmp);
        meta.sha256 = sha256Of(tmp);
        renameSync(tmp, file);
      }
      writeFileSync(`${tmp}.json`, JSON.stringify(meta));
      renameSync(`${tmp}.json`, `${file}.json`);
      savedAt = Date.now();
      dirty = false;
    } catch (err) {
      // The index in memory is whole: only the next start has to rebuild it.
      logger.warn('knowledge index not saved', { file, error: errorMessage(err) });
    }
  }

  /**
   * The gate's sample after a load, as a build takes it (the first GATE_SAMPLE passages by id):
   * without it a loaded index ranked otherwise than a built one (the gate's median then came from
   * the candidates alone; recall@3 on the growth bench's hashed rows 25.5 against 29.1 % at 1,000).
   */
  async function readSample(): Promise<void> {
    sample.clear();
    const rows = await query<Array<{ id: unknown; embedding: Buffer | null }>>(
      pool,
      'reading the knowledge folder’s vectors',
      'SELECT id, embedding FROM knowledge_passages WHERE embedding_model = ? ORDER BY id LIMIT ?',
      [model, GATE_SAMPLE],
    );
    const dims = index?.dimensions;
    for (const r of rows) {
      const v = decodeVector(r.embedding);
      if (v && v.length === dims) sample.set(Number(r.id), v);
    }
  }

  /** The saved index when it is of this model and library and the log still reaches back to it. */
  async function load(): Promise<boolean> {
    if (!file) return false;
    try {
      const meta = JSON.parse(readFileSync(`${file}.json`, 'utf8')) as Meta;
      if (meta.model !== model || meta.kind !== library.kind) return false;
      const [row] = await query<Array<{ first: unknown }>>(
        pool,
        'reading the knowledge index log',
        'SELECT MIN(seq) AS first FROM knowledge_vector_log',
      );
      const first = row?.first === null || row?.first === undefined ? null : Number(row.first);
      // Entries after the file's seq were pruned: what changed then is unknown.
      if (first !== null && first > meta.seq + 1) return false;
      const loaded = meta.passages > 0 ? library.load(file) : null;
      // Hashed after the load: a file another process renamed into place before or during it fails the check.
      if (loaded && sha256Of(file) !== meta.sha256) return false;
      if ((loaded?.size() ?? 0) !== meta.passages) return false;
      index = loaded;
      seq = meta.seq;
      savedAt = Date.now();
      await readSample();
      return true;
    } catch {
      return false;
    }
  }

  let opened: Promise<void> | null = null;
  const open = () =>
    (opened ??= (async () => {
      if (!(await load())) await build();
    })().catch((err: unknown) => {
      opened = null;
      throw err;
    }));

  /** Runs one maintenance step at a time: catch-ups of concurrent retrievals do not interleave. */
  const serial = (step: () => Promise<void>) => {
    const run = chain.then(step);
    chain = run.catch(() => undefined);
    return run;
  };

  return {
    /**
     * Brings the index up to the log's newest entry as read at most LOG_CHECK_MS ago, or since this
     * process last wrote to the log (a no-op when nothing changed: one query per LOG_CHECK_MS,
     * however many searches).
     */
    async current(): Promise<void> {
      await open();
      const now = Date.now();
      const writes = writesThrough(pool);
      if (!checked || now - checked.at >= logCheckMs || checked.writes !== writes) {
        const read = newestSeq();
        checked = { at: now, writes, newest: read };
        // A failed read is not kept: the next search asks again.
        read.catch(() => {
          if (checked?.newest === read) checked = null;
        });
      }
      const newest = await checked.newest;
      if (newest > seq) await serial(async () => (newest > seq ? catchUp(newest) : undefined));
    },
    /** Builds the index again from MariaDB (after a change of model, or on an operator's request). */
    rebuild: () => serial(build),
    /** The `k` passages nearest to `vector`, by id, with their (approximate) cosine. */
    async nearest(vector: readonly number[], k: number): Promise<KnowledgeHit[]> {
      await this.current();
      if (!index || index.dimensions !== vector.length) return [];
      return index.search(Float32Array.from(vector), k).map((h) => ({ id: h.id, cosine: 1 - h.distance }));
    },
    /**
     * The probe's cosine with the folder's sample, leaving out the passages `except` (the
     * candidates, whose own cosines the ranking has): with them, the gate's median is the folder's
     * as it was when every passage was a candidate — exactly so up to GATE_SAMPLE passages.
     */
    background(vector: readonly number[], except: ReadonlySet<number>): number[] {
      const out: number[] = [];
      for (const [id, v] of sample) if (!except.has(id) && v.length === vector.length) out.push(cosine(vector, v));
      return out;
    },
    size: () => index?.size() ?? 0,
    /** Whether the passage with this id is in the index (after `current()`). */
    contains: (id: number) => index?.has(id) ?? false,
    /** The `seq` the index is current to (for tests and the bench). */
    seq: () => seq,
    /** Saves now when anything changed since the last save. */
    flush: () => save(true),
  };
}

export type KnowledgeNeighbours = ReturnType<typeof createKnowledgeNeighbours>;

/**
 * Appends the knowledge passages matching `where` to the log, so every process's index re-reads
 * them. Called after a write, and with the ids read before a removal (`ids`).
 */
export async function logKnowledgeChanges(pool: Pool, change: { sourceId: string; fromIdx?: number } | { ids: number[] }): Promise<void> {
  if ('ids' in change) {
    if (change.ids.length === 0) return;
    await query(
      pool,
      'logging knowledge index changes',
      `INSERT INTO knowledge_vector_log (passage_id) VALUES ${change.ids.map(() => '(?)').join(', ')}`,
      change.ids,
    );
    logWrites.set(pool, writesThrough(pool) + 1);
    return;
  }
  await query(
    pool,
    'logging knowledge index changes',
    'INSERT INTO knowledge_vector_log (passage_id) SELECT id FROM knowledge_passages WHERE source_id = ? AND idx >= ?',
    [change.sourceId, change.fromIdx ?? 0],
  );
  logWrites.set(pool, writesThrough(pool) + 1);
}

/** The ids of a source's passages from `fromIdx` on: read before they are deleted, logged after. */
export async function knowledgePassageIds(pool: Pool, sourceId: string, fromIdx = 0): Promise<number[]> {
  const rows = await query<Array<{ id: unknown }>>(
    pool,
    'reading knowledge passage ids',
    'SELECT id FROM knowledge_passages WHERE source_id = ? AND idx >= ?',
    [sourceId, fromIdx],
  );
  return rows.map((r) => Number(r.id));
}

/** Drops log entries older than LOG_KEEP_DAYS; a process whose file is older rebuilds. */
export async function pruneKnowledgeLog(pool: Pool): Promise<void> {
  await query(
    pool,
    'pruning the knowledge index log',
    `DELETE FROM knowledge_vector_log WHERE logged_at < NOW(3) - INTERVAL ${LOG_KEEP_DAYS} DAY`,
  );
}
