/**
 * The worker's health server on HEALTH_PORT: `/livez` and `/readyz` only (its metrics stay on the
 * SDK's exporter, METRICS_PORT, where no routes can be added). Plain node:http rather than fastify:
 * two GET routes need no router, and the worker, which otherwise runs no HTTP framework, loads
 * none for them.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { HEALTH_PATHS } from './operations.contract';
import type { ReadinessReport } from './readiness';

export interface HealthServerOptions {
  host: string;
  port: number;
  /** Cheap: no I/O. `live: false` answers 503. */
  liveness(): { live: boolean; state?: string };
  readiness(): Promise<ReadinessReport>;
  /** A readiness that threw (it should not): logged by the caller, answered 503. */
  onError?(err: unknown): void;
}

export interface RunningHealthServer {
  url: string;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function answer(opts: HealthServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { error: 'only GET' });
  if (path === HEALTH_PATHS.live) {
    const live = opts.liveness();
    return send(res, live.live ? 200 : 503, live);
  }
  if (path === HEALTH_PATHS.ready) {
    const report = await opts.readiness();
    return send(res, report.ready ? 200 : 503, report);
  }
  return send(res, 404, { error: `not found; try ${HEALTH_PATHS.live} or ${HEALTH_PATHS.ready}` });
}

/** Listens on host:port; rejects with the listen error (a port in use) so the start fails with it. */
export async function startHealthServer(opts: HealthServerOptions): Promise<RunningHealthServer> {
  const server = createServer((req, res) => {
    answer(opts, req, res).catch((err: unknown) => {
      opts.onError?.(err);
      if (!res.headersSent) send(res, 503, { ready: false, error: 'readiness check failed' });
    });
  });
  // A probe connection must not keep a stopping worker alive.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
