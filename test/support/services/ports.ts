import fs from 'node:fs';
import net from 'node:net';

/**
 * A free TCP port on 127.0.0.1, chosen at random below the kernel's ephemeral range.
 * The port is released before returning, so another process could take it before the caller
 * binds it. Ports the kernel hands out by itself (every outgoing connection, every `listen(0)`)
 * come from the ephemeral range, and on a busy test machine thousands of them are in flight:
 * choosing outside that range leaves only the other callers of this function as rivals, and
 * they pick at random among some twelve thousand ports. Falls back to the kernel's choice when
 * no candidate binds.
 */
export async function freePort(): Promise<number> {
  const [low, high] = candidateRange();
  for (let attempt = 0; attempt < 50 && high > low; attempt += 1) {
    const candidate = low + Math.floor(Math.random() * (high - low + 1));
    if (handedOut.has(candidate)) continue;
    if ((await tryListen(candidate)) !== undefined) {
      handedOut.add(candidate);
      return candidate;
    }
  }
  const port = await tryListen(0);
  if (port === undefined) throw new Error('could not determine a free port');
  return port;
}

/** Ports this process already handed out: two callers in one process never get the same one. */
const handedOut = new Set<number>();

/** Above the well-known service ports, below the ephemeral range (32768 on Linux by default). */
function candidateRange(): [number, number] {
  let ephemeralLow = 32_768;
  try {
    const first = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(first) && first > 0) ephemeralLow = first;
  } catch {
    // Not Linux: the default range split still holds on the usual systems.
  }
  return [20_000, ephemeralLow - 1];
}

/** Binds and releases `port` (0: the kernel chooses); the port, or undefined when it is taken. */
function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : undefined;
      server.close(() => resolve(bound || undefined));
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
