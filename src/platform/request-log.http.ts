/**
 * The log of the HTTP servers (review inbox, codec server): fastify writes through the process's
 * structured logger, every line of a request carries its `requestId`, and each request ends in one
 * access line — method, URL without secrets, route, status, duration, and the person when one is
 * signed in. The request id is the caller's `X-Request-Id` when it is short and plain (a reverse
 * proxy's), else a new one, and goes back in the response header, so a user can quote it.
 *
 * Written from what fastify hands over, never from the raw request: no header (cookies,
 * Authorization, CSRF tokens), no body (passwords, codec payloads), and secrets in the URL
 * (`?code=…&state=…` of a sign-in, the codec token in `/ui/<token>/decode`) replaced.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { REDACTED, type StructuredLogger } from './logger';

/** The header a request id comes in and goes back in (reverse proxies set it too). */
export const REQUEST_ID_HEADER = 'x-request-id';

/** What an incoming request id may be: short, and nothing a log or a page would have to escape. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** Query parameters and route parameters whose values are never logged (`code` and `state`: a sign-in's callback). */
const SECRET_NAME = /token|secret|passw|csrf|session|cookie|auth|key|code|state|sig/i;

/** A path segment that looks like a credential: what an unmatched URL may carry (`/ui/<token>/v1/decode`). */
const OPAQUE_SEGMENT = /^[A-Za-z0-9_~.%+=-]{24,}$/;

export interface RequestLogOptions {
  /** Routes machines ask all the time (health probes): answered below 400, their access line is `debug`. */
  quietRoutes?: readonly string[];
  /** Who sent the request, once the server knows (the inbox's signed-in person). */
  user?(req: FastifyRequest): string | undefined;
}

/** The request id of an incoming request: the caller's when it is safe, else a new one. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}

/** `query` with the value of every secret-named parameter replaced. */
function safeQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return eq >= 0 && SECRET_NAME.test(safeDecode(name)) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * The URL as it may be logged: secret query values replaced; the values of secret-named route
 * parameters replaced (the route pattern when the value cannot be found in the path); on a URL
 * no route matched, every segment that looks like a credential.
 */
export function loggableUrl(req: FastifyRequest): string {
  const raw = req.raw.url ?? req.url;
  const q = raw.indexOf('?');
  let path = q < 0 ? raw : raw.slice(0, q);
  const query = q < 0 ? '' : `?${safeQuery(raw.slice(q + 1))}`;
  const route = req.routeOptions.url;
  if (route === undefined) {
    path = path
      .split('/')
      .map((seg) => (OPAQUE_SEGMENT.test(seg) ? REDACTED : seg))
      .join('/');
    return path + query;
  }
  const params = (req.params ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(params)) {
    if (!SECRET_NAME.test(name) || typeof value !== 'string' || value === '') continue;
    const segments = path.split('/');
    const at = segments.findIndex((seg) => seg === value || safeDecode(seg) === value);
    if (at < 0) return route.replace(new RegExp(`:${name}\\b`), REDACTED) + query;
    segments[at] = REDACTED;
    path = segments.join('/');
  }
  return path + query;
}

/** One access line per request instead of fastify's two (incoming, completed), which would log the raw URL. */
class AccessLog extends LogController {
  constructor(private readonly options: RequestLogOptions) {
    super({ requestIdLogLabel: 'requestId' });
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    const status = reply.statusCode;
    const route = req.routeOptions.url;
    const quiet = status < 400 && route !== undefined && this.options.quietRoutes?.includes(route);
    const level = error || status >= 500 ? 'error' : quiet ? 'debug' : 'info';
    const user = this.options.user?.(req);
    req.log[level](
      {
        method: req.method,
        url: loggableUrl(req),
        ...(route !== undefined ? { route } : {}),
        status,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
        ...(user ? { user } : {}),
        ...(error ? { err: error } : {}),
      },
      'request',
    );
  }

  // The route's own error handler logs what went wrong, with the request id.
  override defaultErrorLog(error: Error, req: FastifyRequest, reply: FastifyReply): void {
    if (reply.statusCode >= 500) req.log.error({ err: error }, 'request failed');
  }

  override routeNotFound(): void {}
}

/**
 * The fastify options that make a server log this way: `Fastify({ ...requestLogOptions(logger), … })`,
 * then `echoRequestId(app)`.
 */
export function requestLogOptions(logger: StructuredLogger, options: RequestLogOptions = {}): FastifyServerOptions {
  return {
    loggerInstance: logger as FastifyBaseLogger,
    logController: new AccessLog(options),
    // Read by requestIdOf, which checks it: fastify's own reading would take any value.
    requestIdHeader: false,
    genReqId: requestIdOf,
  };
}

/** Sends the request id back on every response (`X-Request-Id`), errors and refusals included. */
export function echoRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', async (req, reply) => {
    reply.header(REQUEST_ID_HEADER, req.id);
  });
}
