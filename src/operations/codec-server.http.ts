import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { createStructuredLogger, type StructuredLogger } from '../platform/logger';
import { echoRequestId, requestLogOptions } from '../platform/request-log.http';
import { codecProbe } from './codec-readiness';
import { LEGACY_LIVE_PATHS } from './operations.contract';
import { healthPaths, registerHealthRoutes } from './health-routes.http';
import { checkReadiness } from './readiness';

export interface CodecServerOptions {
  codec: PayloadCodec;
  /** Every /encode and /decode request must carry `Authorization: Bearer <token>`. */
  token: string;
  /** Browser origins allowed to call (the Temporal Web UI); others get no CORS headers. */
  corsOrigins: string[];
  /** Its log (access lines, refusals); without it the process's, as `codec-server`. */
  logger?: StructuredLogger;
}

/** The JSON form of temporal.api.common.v1.Payloads, as the Web UI and `temporal` CLI send it. */
interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

const BODY_SCHEMA = {
  type: 'object',
  required: ['payloads'],
  properties: {
    payloads: {
      type: 'array',
      maxItems: 10_000,
      items: {
        type: 'object',
        properties: {
          metadata: { type: 'object', additionalProperties: { type: 'string' } },
          data: { type: 'string' },
        },
      },
    },
  },
} as const;

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

function fromJson(p: JsonPayload): Payload {
  const b64 = (s: string): Uint8Array => {
    if (!BASE64.test(s)) throw new BadPayload('payload fields must be base64');
    return new Uint8Array(Buffer.from(s, 'base64'));
  };
  return {
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])),
    data: b64(p.data ?? ''),
  };
}

function toJson(p: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')]),
    ),
    data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
  };
}

class BadPayload extends Error {}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * Temporal's remote codec protocol (POST /encode, POST /decode, body `{"payloads": [...]}`), so
 * the Web UI (`--ui-codec-endpoint`, TEMPORAL_CODEC_ENDPOINT) and `temporal --codec-endpoint
 * --codec-auth "Bearer …"` show decoded payloads to operators who hold the token. The Web UI cannot
 * add a header of its own (it only forwards its sign-in token), so it is given the endpoint
 * `<url>/ui/<token>`: the same token, in the path. CORS preflights carry no credentials by design,
 * so they are answered without the token; the actual calls are not.
 */
export function createCodecServer(opts: CodecServerOptions): FastifyInstance {
  const logger = opts.logger ?? createStructuredLogger('codec-server');
  const app = Fastify({
    ...requestLogOptions(logger, { quietRoutes: healthPaths(LEGACY_LIVE_PATHS.codecServer) }),
    bodyLimit: 16 * 1024 * 1024,
  });
  echoRequestId(app);
  const expected = digest(`Bearer ${opts.token}`);
  const origins = new Set(opts.corsOrigins);

  app.addHook('onRequest', async (req, reply) => {
    const origin = req.headers.origin;
    if (origin && origins.has(origin)) {
      reply.header('Access-Control-Allow-Origin', origin);
      reply.header('Vary', 'Origin');
      reply.header('Access-Control-Allow-Credentials', 'true');
      reply.header('Access-Control-Allow-Methods', 'POST, OPTIONS');
      reply.header('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-Namespace');
      reply.header('Access-Control-Max-Age', '600');
    }
  });

  // Every refusal and failure names the request (the access line has its route and status).
  const refuse = (req: FastifyRequest, reply: FastifyReply, status: number, reason: string) => {
    req.log.warn({ status, reason, ip: req.ip }, 'request refused');
    return reply.code(status).send({ error: reason, requestId: req.id });
  };
  // Fastify's own refusals (a body that is not the protocol's JSON, too large) in the same form.
  app.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status >= 500) req.log.error({ err }, 'request failed');
    return refuse(req, reply, status, status >= 500 ? 'internal error' : err.message);
  });
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ error: 'not found', requestId: req.id }));

  // Compare digests: equal length, constant time, whatever the caller sent.
  const matches = (presented: string | undefined): boolean =>
    typeof presented === 'string' && timingSafeEqual(digest(presented.trim()), expected);
  const authorised = (req: FastifyRequest): boolean => {
    const pathToken = (req.params as { token?: string }).token;
    return pathToken !== undefined ? matches(`Bearer ${pathToken}`) : matches(req.headers.authorization);
  };

  const route = (path: string, run: (payloads: Payload[]) => Promise<Payload[]>) => {
    app.options(path, async (req, reply) => {
      if (req.headers.origin && !origins.has(req.headers.origin)) return refuse(req, reply, 403, 'origin not allowed');
      return reply.code(204).send();
    });
    app.post<{ Body: { payloads: JsonPayload[] } }>(
      path,
      {
        schema: { body: BODY_SCHEMA },
        // The token is checked before the body is parsed or validated.
        onRequest: async (req, reply) => {
          if (!authorised(req)) {
            reply.header('WWW-Authenticate', 'Bearer');
            return refuse(req, reply, 401, 'a valid bearer token is required');
          }
        },
      },
      async (req, reply) => {
        let payloads: Payload[];
        try {
          payloads = req.body.payloads.map(fromJson);
        } catch (err) {
          return refuse(req, reply, 400, (err as Error).message);
        }
        try {
          return { payloads: (await run(payloads)).map(toJson) };
        } catch (err) {
          // E.g. a payload sealed with a key that is no longer configured: say which, not a 500 page.
          return refuse(req, reply, 422, (err as Error).message);
        }
      },
    );
  };
  for (const prefix of ['', '/ui/:token']) {
    route(`${prefix}/encode`, (p) => opts.codec.encode(p));
    route(`${prefix}/decode`, (p) => opts.codec.decode(p));
  }
  // Ready when the keys seal and open a test payload; no token on these paths (probes carry none).
  registerHealthRoutes(app, { legacyLivePath: LEGACY_LIVE_PATHS.codecServer, readiness: () => checkReadiness([codecProbe(opts.codec)]) });
  return app;
}
