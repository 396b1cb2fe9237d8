import net from 'node:net';

/**
 * Asks the kernel for a free TCP port on 127.0.0.1.
 * The port is released before returning, so another process could take it in between;
 * callers bind it right away and that race is rare enough for tests and the demo.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('could not determine a free port'))));
    });
  });
}

/**
 * Resolves once something accepts TCP connections on host:port.
 * Throws an Error naming `what` when nothing answers within `timeoutMs`.
 */
export async function waitForPort(host: string, port: number, opts: { timeoutMs: number; what: string }): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let lastError = 'no answer';
  while (Date.now() < deadline) {
    const result = await tryConnect(host, port, Math.max(100, Math.min(2000, deadline - Date.now())));
    if (result === true) return;
    lastError = result;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${opts.what} did not answer on ${host}:${port} within ${opts.timeoutMs} ms (${lastError})`);
}

/** One connection attempt: true when accepted, else the reason. */
function tryConnect(host: string, port: number, timeoutMs: number): Promise<true | string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (result: true | string): void => {
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done('connect timed out'));
    socket.once('connect', () => done(true));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
  });
}
