'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS preload (node --require), loaded before any TypeScript loader */
/**
 * Loaded into a worker process with `node --require` by scripts/bench/lived-in-cost.ts (never by
 * the product): counts every SQL statement the process sends, by its text with the placeholder
 * lists folded (a transaction's START TRANSACTION, COMMIT and ROLLBACK too: each is a round trip),
 * with the rows it returned or changed (and about the bytes returned) and MariaDB's own Handler_*
 * counters of the connection that ran it (SHOW SESSION STATUS after each statement; in MariaDB it does not count
 * itself). Those are the server's work for this process alone, however busy the shared server is.
 * Every second (and within a second when `<file>.req` appears) the census and the process's memory are
 * written to BENCH_CENSUS_FILE; with --expose-gc a request collects garbage first. A path written
 * to `<file>.snap` gets a heap snapshot of the main thread. A path written to `<file>.prof` starts a
 * V8 CPU profile of the main thread; an empty `<file>.prof` stops it and writes it there, so a profile
 * can cover one phase alone. With BENCH_CENSUS_HANDLERS=off the Handler counters are not read: their
 * SHOW SESSION STATUS after every statement would be half of the SQL a CPU profile shows.
 */
const fs = require('node:fs');
const v8 = require('node:v8');
const Module = require('node:module');

const file = process.env.BENCH_CENSUS_FILE;
const census = new Map();
const last = new WeakMap();
const STATUS = "SHOW SESSION STATUS WHERE Variable_name LIKE 'Handler\\_%'";
const HANDLERS = process.env.BENCH_CENSUS_HANDLERS !== 'off';

const sqlOf = (s) => (typeof s === 'string' ? s : (s && s.sql) || String(s));
/** The statement's shape: whitespace collapsed, `?, ?, …` and `(?, ?), (?, ?)` lists folded. */
function shape(sql) {
  return sqlOf(sql)
    .replace(/\s+/g, ' ')
    .replace(/\(\?(, \?)*\)(, \(\?(, \?)*\))+/g, '(?…)…')
    .replace(/\?(, \?){2,}/g, '?…')
    .trim()
    .slice(0, 160);
}

/** About what the rows weigh on the wire: bytes of binary values, characters of text, 8 for anything else. */
function payloadBytes(result) {
  if (!Array.isArray(result)) return 0;
  let n = 0;
  for (const row of result) {
    for (const v of Object.values(row)) {
      if (Buffer.isBuffer(v)) n += v.length;
      else if (typeof v === 'string') n += v.length;
      else n += 8;
    }
  }
  return n;
}

async function status(conn) {
  if (!HANDLERS) return {};
  const rows = await conn.query(STATUS);
  const out = {};
  for (const r of rows) out[r.Variable_name] = Number(r.Value);
  return out;
}

/** A transaction's own round trips (the driver's beginTransaction, commit, rollback) are counted by name. */
const TRANSACTION = { beginTransaction: 'START TRANSACTION', commit: 'COMMIT', rollback: 'ROLLBACK' };

async function measured(conn, method, args) {
  let before = last.get(conn);
  if (!before) before = await status(conn);
  let result;
  let failed = false;
  try {
    result = await conn[method](...args);
    return result;
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    try {
      const after = await status(conn);
      last.set(conn, after);
      const key = TRANSACTION[method] ?? shape(args[0]);
      const e = census.get(key) || { n: 0, rows: 0, failed: 0, handlers: {} };
      e.n += 1;
      if (failed) e.failed += 1;
      else {
        e.rows += Array.isArray(result) ? result.length : Number((result && result.affectedRows) || 0);
        e.bytes = (e.bytes || 0) + payloadBytes(result);
      }
      for (const [k, v] of Object.entries(after)) {
        const d = v - (before[k] || 0);
        if (d) e.handlers[k] = (e.handlers[k] || 0) + d;
      }
      census.set(key, e);
    } catch {
      last.delete(conn);
    }
  }
}

function wrapConnection(conn, release) {
  return new Proxy(conn, {
    get(target, prop) {
      if (prop === 'query' || prop === 'execute' || prop in TRANSACTION) return (...args) => measured(target, prop, args);
      if (prop === 'release' && release) return release;
      const v = target[prop];
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

function wrapPool(pool) {
  return new Proxy(pool, {
    get(target, prop) {
      if (prop === 'query' || prop === 'execute')
        return async (...args) => {
          const conn = await target.getConnection();
          try {
            return await measured(conn, prop, args);
          } finally {
            conn.release();
          }
        };
      if (prop === 'getConnection') return async () => wrapConnection(await target.getConnection());
      const v = target[prop];
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

// The driver's exports are getters: every require of it gets a copy whose createPool wraps the pool.
const load = Module._load;
let wrapped;
Module._load = function (request, ...rest) {
  const exports = load.call(this, request, ...rest);
  if (request !== 'mariadb') return exports;
  wrapped ??= { ...exports, createPool: (...args) => wrapPool(exports.createPool(...args)) };
  return wrapped;
};

function write() {
  if (!file) return;
  const statements = Object.fromEntries(census);
  const memory = { usage: process.memoryUsage(), heap: v8.getHeapStatistics(), spaces: v8.getHeapSpaceStatistics() };
  fs.writeFileSync(`${file}.tmp`, JSON.stringify({ at: Date.now(), pid: process.pid, statements, memory }));
  fs.renameSync(`${file}.tmp`, file);
}

// Preload modules run in every worker thread too (the workflow thread): only the main thread reports.
if (file && require('node:worker_threads').isMainThread) {
  setInterval(() => {
    const req = `${file}.req`;
    if (fs.existsSync(req)) {
      fs.rmSync(req, { force: true });
      if (typeof global.gc === 'function') global.gc();
    }
    // A heap snapshot when asked: `<file>.snap` names where (the SDK takes SIGUSR2 for a shutdown).
    const snap = `${file}.snap`;
    if (fs.existsSync(snap)) {
      const to = fs.readFileSync(snap, 'utf8').trim();
      fs.rmSync(snap, { force: true });
      v8.writeHeapSnapshot(`${to}.tmp`);
      fs.renameSync(`${to}.tmp`, to);
    }
    const prof = `${file}.prof`;
    if (fs.existsSync(prof)) {
      const to = fs.readFileSync(prof, 'utf8').trim();
      fs.rmSync(prof, { force: true });
      profile(to);
    }
    write();
  }, 1000).unref();
}

let profiler;
let profileTo;
/** Starts a CPU profile to be written to `to`, or with an empty `to` stops the running one and writes it. */
function profile(to) {
  if (to) {
    profileTo = to;
    profiler = new (require('node:inspector').Session)();
    profiler.connect();
    profiler.post('Profiler.enable', () => profiler.post('Profiler.start'));
    return;
  }
  if (!profiler) return;
  const session = profiler;
  profiler = undefined;
  session.post('Profiler.stop', (err, result) => {
    if (!err) fs.writeFileSync(profileTo, JSON.stringify(result.profile));
    session.disconnect();
  });
}
