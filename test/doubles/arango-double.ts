/**
 * TEST DOUBLE of the ArangoDB HTTP API (no ArangoDB server can run on the build machines). It
 * implements exactly the endpoints the product's graph adapter (and its tests) call through the
 * official `arangojs` driver, with real in-memory behaviour and ArangoDB's error bodies:
 *
 *   GET    /_db/{db}/_api/database/current           does the database exist
 *   POST   /_db/_system/_api/database                create a database
 *   DELETE /_db/_system/_api/database/{name}         drop a database (test clean-up)
 *   GET    /_db/{db}/_api/collection                 list collections
 *   POST   /_db/{db}/_api/collection                 create a document or edge collection
 *   GET    /_db/{db}/_api/collection/{name}/count    document count (tests)
 *   GET    /_db/{db}/_api/document/{name}/{key}      read one document (tests)
 *   POST   /_db/{db}/_api/document/{name}            save one or many, with `overwriteMode`
 *   POST   /_db/{db}/_api/cursor                     AQL: ONLY the four query texts of
 *                                                    src/retrieval/thread-graph.arango.ts, recognised verbatim
 *
 * Any other route, query parameter or AQL text answers HTTP 501 with a message naming it, so a
 * change in the adapter fails loudly instead of being half-interpreted. Basic auth is checked.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ArangoRequest {
  method: string;
  path: string;
  body: unknown;
}

type Doc = Record<string, unknown> & { _key: string; _id: string; _rev: string };
interface Collection {
  type: 2 | 3; // 2 document, 3 edge (ArangoDB's numbers)
  id: string;
  docs: Map<string, Doc>;
}

export interface ArangoDouble {
  url: string;
  requests: ArangoRequest[];
  /** Requests answered 501 (unknown route, parameter or query); a test expects this to stay empty. */
  unhandled: ArangoRequest[];
  /** While down, every connection is closed without an answer, like a crashed server. */
  down(isDown: boolean): void;
  /** The next requests answer these HTTP statuses, in order, with an ArangoDB error body. */
  failNext(...statuses: number[]): void;
  /** Every stored document of every database (a test searches them for what must be gone). */
  documents(): Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

class ArangoFailure extends Error {
  constructor(
    readonly status: number,
    readonly errorNum: number,
    message: string,
  ) {
    super(message);
  }
}

const notImplemented = (what: string) => new ArangoFailure(501, 9, `arango double: ${what} is not implemented`);
const normalise = (q: string) => q.replace(/\s+/g, ' ').trim();

// Verbatim copies of the adapter's queries: a changed query must be re-interpreted here on purpose.
const SAME_SENDER = normalise(`WITH people, emails
FOR e IN 1..1 OUTBOUND @person sent
  FILTER e.account == @account AND e.mailbox == @mailbox AND e.direction == 'in' AND e.email_id != @emailId
  SORT e.date DESC, e.email_id DESC
  LIMIT @limit
  RETURN e.email_id`);
const SAME_ORGANISATION = normalise(`WITH people, emails, organisations
FOR p IN 1..1 INBOUND @organisation works_at
  FILTER p._id != @person
  FOR e IN 1..1 OUTBOUND p sent
  FILTER e.account == @account AND e.mailbox == @mailbox AND e.direction == 'in' AND e.email_id != @emailId
  SORT e.date DESC, e.email_id DESC
  LIMIT @limit
  RETURN e.email_id`);

const FORGET_EDGES = normalise(`FOR e IN @@edges
  FILTER e._from IN @handles OR e._to IN @handles
  REMOVE e IN @@edges`);
const FORGET_VERTICES = normalise(`FOR k IN @keys
  REMOVE k IN @@vertices OPTIONS { ignoreErrors: true }`);

const KEY = /^[A-Za-z0-9_\-:.@()+,=;$!*'%]{1,254}$/;

/** AQL's SORT order for the values the adapter sorts on: null first, then numbers, then strings. */
function compareAql(a: unknown, b: unknown): number {
  const rank = (v: unknown) => (v === null || v === undefined ? 0 : typeof v === 'number' ? 2 : 3);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  return (a as number | string) < (b as number | string) ? -1 : (a as number | string) > (b as number | string) ? 1 : 0;
}

/** Starts the double on 127.0.0.1 at a random port; it accepts only `username`/`password`. */
export async function startArangoDouble(auth: { username: string; password: string }): Promise<ArangoDouble> {
  const databases = new Map<string, Map<string, Collection>>([['_system', new Map()]]);
  const requests: ArangoRequest[] = [];
  const unhandled: ArangoRequest[] = [];
  const failures: number[] = [];
  let isDown = false;
  let sequence = 1000;
  const expectedAuth = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;

  function database(name: string): Map<string, Collection> {
    const db = databases.get(name);
    if (!db) throw new ArangoFailure(404, 1228, 'database not found');
    return db;
  }

  function collection(db: Map<string, Collection>, name: string): Collection {
    const c = db.get(name);
    if (!c) throw new ArangoFailure(404, 1203, `collection or view not found: ${name}`);
    return c;
  }

  function describe(name: string, c: Collection) {
    return { id: c.id, name, status: 3, type: c.type, isSystem: false, globallyUniqueId: `h${c.id}` };
  }

  type SaveResult = { error: true; errorNum: number; errorMessage: string } | { _id: string; _key: string; _rev: string };

  function save(db: Map<string, Collection>, c: Collection, input: unknown, overwriteMode: string | undefined): SaveResult {
    if (!input || typeof input !== 'object' || Array.isArray(input))
      return { error: true, errorNum: 1227, errorMessage: 'invalid document type' };
    const doc = { ...(input as Record<string, unknown>) };
    const key = typeof doc._key === 'string' ? doc._key : String(++sequence);
    if (!KEY.test(key)) return { error: true, errorNum: 1221, errorMessage: 'illegal document key' };
    if (c.type === 3) {
      const handle = (v: unknown) => typeof v === 'string' && /^[^/]+\/[^/]+$/.test(v);
      if (!handle(doc._from) || !handle(doc._to)) return { error: true, errorNum: 1233, errorMessage: 'edge attribute missing or invalid' };
    }
    const name = [...db].find(([, v]) => v === c)?.[0] ?? '';
    const old = c.docs.get(key);
    const rev = randomBytes(6).toString('hex');
    if (old && overwriteMode !== 'update') {
      return {
        error: true,
        errorNum: 1210,
        errorMessage: `unique constraint violated - in index primary of type primary over '_key'; conflicting key: ${key}`,
      };
    }
    const base = overwriteMode === 'update' && old ? old : {};
    const stored: Doc = { ...base, ...doc, _key: key, _id: `${name}/${key}`, _rev: rev };
    c.docs.set(key, stored);
    return { _id: stored._id, _key: key, _rev: rev, ...(old ? { _oldRev: old._rev } : {}) };
  }

  /** Vertices one step along `edges` from `start`, as AQL's 1..1 traversal yields them. */
  function neighbours(db: Map<string, Collection>, start: string, edges: string, direction: 'out' | 'in'): Doc[] {
    const [from, to] = direction === 'out' ? (['_from', '_to'] as const) : (['_to', '_from'] as const);
    const out: Doc[] = [];
    for (const e of db.get(edges)?.docs.values() ?? []) {
      if (e[from] !== start) continue;
      const [coll = '', key = ''] = String(e[to]).split('/');
      const v = db.get(coll)?.docs.get(key);
      if (v) out.push(v);
    }
    return out;
  }

  function cursor(db: Map<string, Collection>, body: Record<string, unknown>): unknown[] {
    const query = normalise(String(body.query ?? ''));
    const vars = (body.bindVars ?? {}) as Record<string, unknown>;
    const pickEmails = (emails: Doc[]) =>
      emails
        .filter((e) => e.account === vars.account && e.mailbox === vars.mailbox && e.direction === 'in' && e.email_id !== vars.emailId)
        .sort((a, b) => compareAql(b.date, a.date) || compareAql(b.email_id, a.email_id))
        .slice(0, Number(vars.limit))
        .map((e) => e.email_id);
    if (query === SAME_SENDER) return pickEmails(neighbours(db, String(vars.person), 'sent', 'out'));
    if (query === SAME_ORGANISATION) {
      // Nested FORs are one pipeline in AQL: SORT and LIMIT act on all colleagues' mail together.
      const colleagues = neighbours(db, String(vars.organisation), 'works_at', 'in').filter((p) => p._id !== vars.person);
      return pickEmails(colleagues.flatMap((p) => neighbours(db, p._id, 'sent', 'out')));
    }
    if (query === FORGET_EDGES) {
      const c = collection(db, String(vars['@edges']));
      const handles = new Set(vars.handles as string[]);
      for (const [k, e] of [...c.docs]) if (handles.has(String(e._from)) || handles.has(String(e._to))) c.docs.delete(k);
      return [];
    }
    if (query === FORGET_VERTICES) {
      const c = collection(db, String(vars['@vertices']));
      for (const k of vars.keys as string[]) c.docs.delete(k);
      return [];
    }
    throw notImplemented(`AQL query "${query.slice(0, 120)}"`);
  }

  function route(method: string, path: string, params: URLSearchParams, body: unknown): { status: number; payload: unknown } {
    const m = /^\/_db\/([^/]+)\/_api\/(.*)$/.exec(path);
    if (!m) throw notImplemented(`route ${method} ${path}`);
    const dbName = decodeURIComponent(m[1] ?? '');
    const api = m[2] ?? '';
    const b = (body ?? {}) as Record<string, unknown>;
    const ok = (payload: Record<string, unknown>, status = 200) => ({ status, payload: { error: false, code: status, ...payload } });
    const allowParams = (...names: string[]) => {
      const extra = [...params.keys()].filter((k) => !names.includes(k));
      if (extra.length > 0) throw notImplemented(`parameter ${extra.join(', ')} on ${method} ${path}`);
    };

    if (method === 'GET' && api === 'database/current') {
      database(dbName);
      return ok({ result: { name: dbName, id: '1', path: 'none', isSystem: dbName === '_system' } });
    }
    if (api === 'database' || api.startsWith('database/')) {
      if (dbName !== '_system') throw new ArangoFailure(403, 1230, 'operation only allowed in system database');
      if (method === 'POST' && api === 'database') {
        const name = String(b.name ?? '');
        if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw new ArangoFailure(400, 1229, 'database name invalid');
        if (databases.has(name)) throw new ArangoFailure(409, 1207, 'duplicate database name');
        databases.set(name, new Map());
        return ok({ result: true }, 201);
      }
      if (method === 'DELETE') {
        const name = decodeURIComponent(api.slice('database/'.length));
        if (!databases.delete(name)) throw new ArangoFailure(404, 1228, 'database not found');
        return ok({ result: true });
      }
    }
    const db = database(dbName);
    if (method === 'GET' && api === 'collection') {
      allowParams('excludeSystem');
      return ok({ result: [...db].map(([name, c]) => describe(name, c)) });
    }
    if (method === 'POST' && api === 'collection') {
      const { name, type, ...rest } = b;
      if (Object.keys(rest).length > 0) throw notImplemented(`collection options ${Object.keys(rest).join(', ')}`);
      if (typeof name !== 'string' || !/^[A-Za-z][A-Za-z0-9_-]{0,255}$/.test(name)) throw new ArangoFailure(400, 1208, 'illegal name');
      if (db.has(name)) throw new ArangoFailure(409, 1207, `duplicate name: ${name}`);
      const c: Collection = { type: type === 3 ? 3 : 2, id: String(++sequence), docs: new Map() };
      db.set(name, c);
      return ok(describe(name, c));
    }
    const count = /^collection\/([^/]+)\/count$/.exec(api);
    if (method === 'GET' && count) {
      const name = decodeURIComponent(count[1] ?? '');
      const c = collection(db, name);
      return ok({ ...describe(name, c), count: c.docs.size });
    }
    const read = /^document\/([^/]+)\/([^/]+)$/.exec(api);
    if (method === 'GET' && read) {
      const doc = collection(db, decodeURIComponent(read[1] ?? '')).docs.get(decodeURIComponent(read[2] ?? ''));
      if (!doc) throw new ArangoFailure(404, 1202, 'document not found');
      return { status: 200, payload: doc };
    }
    const document = /^document\/([^/]+)$/.exec(api);
    if (method === 'POST' && document) {
      allowParams('overwriteMode', 'waitForSync');
      const c = collection(db, decodeURIComponent(document[1] ?? ''));
      const mode = params.get('overwriteMode') ?? undefined;
      if (mode !== undefined && mode !== 'update' && mode !== 'conflict') throw notImplemented(`overwriteMode=${mode}`);
      if (Array.isArray(body)) return { status: 202, payload: body.map((d) => save(db, c, d, mode)) };
      const result = save(db, c, body, mode);
      if ('error' in result) throw new ArangoFailure(result.errorNum === 1210 ? 409 : 400, result.errorNum, result.errorMessage);
      return { status: 202, payload: result };
    }
    if (method === 'POST' && api === 'cursor') {
      const result = cursor(db, b);
      return {
        status: 201,
        payload: { error: false, code: 201, result, hasMore: false, cached: false, extra: { warnings: [], stats: {} } },
      };
    }
    throw notImplemented(`route ${method} ${path}`);
  }

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (isDown) {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = req.method ?? 'GET';
      const url = new URL(req.url ?? '/', 'http://double');
      const send = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(payload));
      };
      const fail = (status: number, errorNum: number, errorMessage: string) =>
        send(status, { error: true, code: status, errorNum, errorMessage });
      let body: unknown;
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      } catch {
        fail(400, 600, 'VPackError error: Expecting digit');
        return;
      }
      const logged = { method, path: req.url ?? '', body };
      requests.push(logged);
      const scripted = failures.shift();
      if (scripted !== undefined) return fail(scripted, scripted, `arango double: scripted HTTP ${scripted}`);
      if (req.headers.authorization !== expectedAuth) return fail(401, 11, 'not authorized to execute this request');
      try {
        const { status, payload } = route(method, url.pathname, url.searchParams, body);
        send(status, payload);
      } catch (err) {
        const f = err instanceof ArangoFailure ? err : new ArangoFailure(500, 4, (err as Error).message);
        if (f.status === 501) unhandled.push(logged);
        fail(f.status, f.errorNum, f.message);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    unhandled,
    down(value: boolean) {
      isDown = value;
      if (value) server.closeAllConnections();
    },
    failNext: (...statuses) => failures.push(...statuses),
    documents: () => [...databases.values()].flatMap((db) => [...db.values()].flatMap((c) => [...c.docs.values()])),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
