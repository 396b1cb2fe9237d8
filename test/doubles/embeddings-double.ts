/**
 * TEST DOUBLE of an OpenAI-compatible embeddings endpoint (`POST /v1/embeddings`; no real model
 * can run on the build machines). It answers through the same HTTP API the real `openai` client
 * uses, with a deterministic bag-of-words vector: every word is hashed into one of `dims`
 * buckets, so texts sharing words are near each other under cosine similarity. Tests script
 * failures (HTTP status, latency) for the next requests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type EmbeddingBehaviour =
  | { kind: 'status'; status: number; retryAfter?: string }
  | { kind: 'delay'; ms: number }
  /** Answers 200 with this body as it is, e.g. too few vectors. */
  | { kind: 'raw'; body: unknown };

export interface EmbeddingRequest {
  path: string;
  body: { model?: string; input?: string | string[]; encoding_format?: string; input_type?: string };
}

export interface EmbeddingsDouble {
  baseUrl: string;
  dims: number;
  requests: EmbeddingRequest[];
  /** Behaviours for the next embedding requests, in order; afterwards it embeds normally. */
  script(...behaviours: EmbeddingBehaviour[]): void;
  stop(): Promise<void>;
}

/** FNV-1a: stable across runs and platforms, unlike anything seeded. */
function fnv1a(word: string): number {
  let h = 0x811c9dc5;
  for (const ch of word) {
    h ^= ch.codePointAt(0) ?? 0;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The double's embedding of one text; exported so tests can reason about expected neighbours. */
export function bagOfWordsVector(text: string, dims = 64): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (word.length < 3) continue; // "a", "to", "zu": noise that makes everything look alike
    const h = fnv1a(word);
    v[h % dims] = (v[h % dims] ?? 0) + 1;
  }
  // An empty text still needs a direction: cosine is undefined for the zero vector.
  if (!v.some((x) => x !== 0)) v[0] = 1;
  return v;
}

function send(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(payload));
}

function asBase64(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}

/** Starts the double on 127.0.0.1 at a random port; `dims` is the vector size it answers with. */
export async function startEmbeddingsDouble(options: { dims?: number } = {}): Promise<EmbeddingsDouble> {
  const dims = options.dims ?? 64;
  const requests: EmbeddingRequest[] = [];
  const queue: EmbeddingBehaviour[] = [];

  const respond = async (body: EmbeddingRequest['body'], res: ServerResponse): Promise<void> => {
    const b = queue.shift();
    if (b?.kind === 'delay') await new Promise((r) => setTimeout(r, b.ms));
    if (res.destroyed) return;
    if (b?.kind === 'status') {
      send(
        res,
        b.status,
        { error: { message: `scripted ${b.status}`, type: 'scripted', code: null } },
        b.retryAfter ? { 'retry-after': b.retryAfter } : {},
      );
      return;
    }
    if (b?.kind === 'raw') {
      send(res, 200, b.body);
      return;
    }
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(inputs) || inputs.length === 0 || inputs.some((t) => typeof t !== 'string' || t.length === 0)) {
      // What OpenAI answers for a missing or empty input.
      send(res, 400, {
        error: { message: "'input' must be a non-empty string or array of non-empty strings", type: 'invalid_request_error' },
      });
      return;
    }
    send(res, 200, {
      object: 'list',
      model: body.model ?? 'double-embedding',
      data: inputs.map((text, index) => {
        const vector = bagOfWordsVector(text, dims);
        return { object: 'embedding', index, embedding: body.encoding_format === 'base64' ? asBase64(vector) : vector };
      }),
      usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
    });
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: EmbeddingRequest['body'] = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as EmbeddingRequest['body'];
      } catch {
        send(res, 400, { error: { message: 'invalid JSON request' } });
        return;
      }
      const path = req.url ?? '';
      requests.push({ path, body });
      if (req.method !== 'POST' || !path.endsWith('/embeddings')) {
        send(res, 404, { error: { message: `embeddings double: no route ${req.method} ${path}` } });
        return;
      }
      void respond(body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    dims,
    requests,
    script: (...b) => queue.push(...b),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
