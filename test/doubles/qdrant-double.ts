/**
 * TEST DOUBLE of the Qdrant REST API (no Qdrant server can run on the build machines). It
 * implements exactly the endpoints the product's adapter (and its tests) call through the
 * official `@qdrant/js-client-rest` client, with real in-memory behaviour:
 *
 *   GET    /collections/{name}                 collection info (vector size, payload schema)
 *   PUT    /collections/{name}                 create ({ vectors: { size, distance: 'Cosine' } })
 *   DELETE /collections/{name}                 drop (test clean-up)
 *   PUT    /collections/{name}/index           payload index ({ field_name, field_schema })
 *   PUT    /collections/{name}/points          upsert ({ points: [{ id, vector, payload }] })
 *   POST   /collections/{name}/points/delete   delete by filter or by ids
 *   POST   /collections/{name}/points/scroll   filtered scroll, ordered by id
 *   POST   /collections/{name}/points/query    nearest by cosine similarity, filtered
 *   POST   /collections/{name}/points/count    filtered count (tests)
 *
 * Filters: must / must_not / should of `match.value`, `match.any`, `range` and nested filters;
 * `with_payload` as true, false or a list of fields.
 * Anything else answers HTTP 501 naming what is missing, so a change in the adapter fails loudly.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface QdrantRequest {
  method: string;
  path: string;
  body: unknown;
}

type Payload = Record<string, unknown>;
interface Point {
  id: string | number;
  vector: number[];
  payload: Payload;
}
interface Collection {
  size: number;
  points: Map<string, Point>;
  indexes: Map<string, string>;
}

export interface QdrantDouble {
  url: string;
  requests: QdrantRequest[];
  /** Requests no route matched (answered 501); a test expects this to stay empty. */
  unhandled: QdrantRequest[];
  /** While down, every connection is closed without an answer, like a crashed server. */
  down(isDown: boolean): void;
  /** The next requests answer these HTTP statuses, in order. */
  failNext(...statuses: number[]): void;
  /** Every stored point's payload, of every collection (a test searches them for what must be gone). */
  payloads(): Payload[];
  stop(): Promise<void>;
}

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

function normaliseId(id: unknown): string | number {
  if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) return id;
  if (typeof id === 'string' && UUID.test(id)) {
    const x = id.replace(/-/g, '').toLowerCase();
    return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
  }
  throw new HttpFailure(
    400,
    `Format error in JSON body: Unable to parse point id ${JSON.stringify(id)}: expected an unsigned integer or a UUID`,
  );
}

function normalise(v: number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

function matches(value: unknown, wanted: (v: unknown) => boolean): boolean {
  return Array.isArray(value) ? value.some(wanted) : wanted(value);
}

function condition(c: Record<string, unknown>, p: Point): boolean {
  if ('must' in c || 'should' in c || 'must_not' in c) return filter(c, p);
  if (typeof c.key !== 'string' || /[.[]/.test(c.key))
    throw new HttpFailure(501, `qdrant double: unsupported condition ${JSON.stringify(c)}`);
  const value = p.payload[c.key];
  const m = c.match as { value?: unknown } | undefined;
  const r = c.range as { gt?: number; gte?: number; lt?: number; lte?: number } | undefined;
  if (m && 'value' in m) return matches(value, (v) => v === m.value);
  const any = (m as { any?: unknown } | undefined)?.any;
  if (Array.isArray(any)) return matches(value, (v) => any.includes(v));
  if (r && !m) {
    return matches(
      value,
      (v) =>
        typeof v === 'number' &&
        (r.gt === undefined || v > r.gt) &&
        (r.gte === undefined || v >= r.gte) &&
        (r.lt === undefined || v < r.lt) &&
        (r.lte === undefined || v <= r.lte),
    );
  }
  throw new HttpFailure(501, `qdrant double: unsupported condition ${JSON.stringify(c)}`);
}

function filter(f: unknown, p: Point): boolean {
  if (f === undefined || f === null) return true;
  const { must, must_not, should, ...rest } = f as Record<string, unknown>;
  if (Object.keys(rest).length > 0) throw new HttpFailure(501, `qdrant double: unsupported filter keys ${Object.keys(rest).join(', ')}`);
  const list = (x: unknown) => (x === undefined || x === null ? [] : Array.isArray(x) ? x : [x]) as Array<Record<string, unknown>>;
  if (!list(must).every((c) => condition(c, p))) return false;
  if (list(must_not).some((c) => condition(c, p))) return false;
  const anyOf = list(should);
  return anyOf.length === 0 || anyOf.some((c) => condition(c, p));
}

function selectPayload(payload: Payload, selector: unknown): Payload | null {
  if (selector === false || selector === undefined || selector === null) return null;
  if (selector === true) return payload;
  if (Array.isArray(selector)) return Object.fromEntries(Object.entries(payload).filter(([k]) => selector.includes(k)));
  throw new HttpFailure(501, `qdrant double: unsupported with_payload ${JSON.stringify(selector)}`);
}

function byId(a: Point, b: Point): number {
  if (typeof a.id !== typeof b.id) return typeof a.id === 'number' ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function only(body: Record<string, unknown>, allowed: string[], what: string): void {
  const extra = Object.keys(body).filter((k) => body[k] !== undefined && body[k] !== null && !allowed.includes(k));
  if (extra.length > 0) throw new HttpFailure(501, `qdrant double: ${what} does not implement ${extra.join(', ')}`);
}

/** Starts the double on 127.0.0.1 at a random port. */
export async function startQdrantDouble(): Promise<QdrantDouble> {
  const collections = new Map<string, Collection>();
  const requests: QdrantRequest[] = [];
  const unhandled: QdrantRequest[] = [];
  const failures: number[] = [];
  let isDown = false;
  let operation = 0;

  const completed = () => ({ operation_id: ++operation, status: 'completed' });

  function existing(name: string): Collection {
    const c = collections.get(name);
    if (!c) throw new HttpFailure(404, `Not found: Collection \`${name}\` doesn't exist!`);
    return c;
  }

  function route(method: string, path: string, body: Record<string, unknown>): unknown {
    const m = /^\/collections\/([^/]+)(\/.*)?$/.exec(path);
    const name = decodeURIComponent(m?.[1] ?? '');
    const rest = m?.[2] ?? '';
    const key = `${method} ${rest}`;
    if (!m) throw new HttpFailure(501, `qdrant double: no route ${method} ${path}`);

    if (key === 'GET ') {
      const c = existing(name);
      return {
        status: 'green',
        optimizer_status: 'ok',
        points_count: c.points.size,
        indexed_vectors_count: 0,
        segments_count: 1,
        config: { params: { vectors: { size: c.size, distance: 'Cosine' }, shard_number: 1, replication_factor: 1 } },
        payload_schema: Object.fromEntries(
          [...c.indexes].map(([field, type]) => [
            field,
            { data_type: type, points: [...c.points.values()].filter((p) => p.payload[field] !== undefined).length },
          ]),
        ),
      };
    }
    if (key === 'PUT ') {
      only(body, ['vectors'], 'create collection');
      const vectors = body.vectors as { size?: unknown; distance?: unknown } | undefined;
      if (typeof vectors?.size !== 'number' || vectors.size < 1) throw new HttpFailure(400, 'Wrong input: vectors.size is required');
      if (vectors.distance !== 'Cosine') throw new HttpFailure(501, `qdrant double: distance ${String(vectors.distance)} not implemented`);
      if (collections.has(name)) throw new HttpFailure(409, `Wrong input: Collection \`${name}\` already exists!`);
      collections.set(name, { size: vectors.size, points: new Map(), indexes: new Map() });
      return true;
    }
    if (key === 'DELETE ') return collections.delete(name);
    if (key === 'PUT /index') {
      only(body, ['field_name', 'field_schema'], 'create index');
      const c = existing(name);
      if (typeof body.field_name !== 'string' || !['keyword', 'integer'].includes(body.field_schema as string)) {
        throw new HttpFailure(501, `qdrant double: index ${JSON.stringify(body)} not implemented`);
      }
      c.indexes.set(body.field_name, body.field_schema as string);
      return completed();
    }
    if (key === 'PUT /points') {
      only(body, ['points'], 'upsert (only the `points` form)');
      const c = existing(name);
      const points = (body.points ?? []) as Array<{ id: unknown; vector: unknown; payload?: Payload }>;
      const parsed = points.map((p) => {
        if (!Array.isArray(p.vector) || !p.vector.every((x) => typeof x === 'number')) {
          throw new HttpFailure(501, 'qdrant double: only unnamed dense vectors are implemented');
        }
        if (p.vector.length !== c.size) {
          throw new HttpFailure(400, `Wrong input: Vector dimension error: expected dim: ${c.size}, got ${p.vector.length}`);
        }
        return { id: normaliseId(p.id), vector: normalise(p.vector as number[]), payload: p.payload ?? {} };
      });
      for (const p of parsed) c.points.set(String(p.id), p);
      return completed();
    }
    if (key === 'POST /points/delete') {
      only(body, ['filter', 'points'], 'delete points');
      const c = existing(name);
      if (Array.isArray(body.points)) {
        for (const id of body.points) c.points.delete(String(normaliseId(id)));
      } else if (body.filter) {
        for (const [id, p] of [...c.points]) if (filter(body.filter, p)) c.points.delete(id);
      } else {
        throw new HttpFailure(400, 'Wrong input: either points or filter is required');
      }
      return completed();
    }
    if (key === 'POST /points/scroll') {
      only(body, ['filter', 'limit', 'with_payload', 'with_vector'], 'scroll');
      if (body.with_vector) throw new HttpFailure(501, 'qdrant double: with_vector is not implemented');
      const c = existing(name);
      const limit = typeof body.limit === 'number' ? body.limit : 10;
      const found = [...c.points.values()].filter((p) => filter(body.filter, p)).sort(byId);
      const page = found.slice(0, limit);
      return {
        points: page.map((p) => ({
          id: p.id,
          payload: selectPayload(p.payload, body.with_payload ?? true),
        })),
        next_page_offset: found[limit]?.id ?? null,
      };
    }
    if (key === 'POST /points/query') {
      only(body, ['query', 'filter', 'limit', 'with_payload'], 'query');
      const c = existing(name);
      const q = body.query as unknown;
      const vector = Array.isArray(q) ? q : (q as { nearest?: unknown } | undefined)?.nearest;
      if (!Array.isArray(vector) || !vector.every((x) => typeof x === 'number')) {
        throw new HttpFailure(501, `qdrant double: query ${JSON.stringify(q)?.slice(0, 80)} not implemented (only a dense vector)`);
      }
      if (vector.length !== c.size)
        throw new HttpFailure(400, `Wrong input: Vector dimension error: expected dim: ${c.size}, got ${vector.length}`);
      const probe = normalise(vector as number[]);
      const limit = typeof body.limit === 'number' ? body.limit : 10;
      const scored = [...c.points.values()]
        .filter((p) => filter(body.filter, p))
        .map((p) => ({ p, score: p.vector.reduce((s, x, i) => s + x * (probe[i] ?? 0), 0) }))
        .sort((a, b) => b.score - a.score || byId(a.p, b.p))
        .slice(0, limit);
      return {
        points: scored.map(({ p, score }) => ({
          id: p.id,
          version: 0,
          score,
          payload: selectPayload(p.payload, body.with_payload ?? false),
        })),
      };
    }
    if (key === 'POST /points/count') {
      only(body, ['filter', 'exact'], 'count');
      const c = existing(name);
      return { count: [...c.points.values()].filter((p) => filter(body.filter, p)).length };
    }
    throw new HttpFailure(501, `qdrant double: no route ${method} ${path}`);
  }

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (isDown) {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const started = process.hrtime.bigint();
      const method = req.method ?? 'GET';
      const [path = '', query = ''] = (req.url ?? '').split('?');
      let body: Record<string, unknown> = {};
      const answer = (status: number, payload: Record<string, unknown>) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...payload, time: Number(process.hrtime.bigint() - started) / 1e9 }));
      };
      try {
        body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
      } catch {
        answer(400, { status: { error: 'Format error in JSON body' } });
        return;
      }
      const logged = { method, path: query ? `${path}?${query}` : path, body };
      requests.push(logged);
      const failure = failures.shift();
      if (failure !== undefined) {
        answer(failure, { status: { error: `qdrant double: scripted HTTP ${failure}` } });
        return;
      }
      try {
        answer(200, { result: route(method, path, body), status: 'ok' });
      } catch (err) {
        const status = err instanceof HttpFailure ? err.status : 500;
        if (status === 501) unhandled.push(logged);
        answer(status, { status: { error: (err as Error).message } });
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
      // Kept-alive sockets would otherwise still reach the handler.
      if (value) server.closeAllConnections();
    },
    failNext: (...statuses) => failures.push(...statuses),
    payloads: () => [...collections.values()].flatMap((c) => [...c.points.values()].map((p) => p.payload)),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
