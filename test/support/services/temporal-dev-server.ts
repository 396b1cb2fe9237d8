/**
 * Why a launcher of our own and not `TestWorkflowEnvironment.createLocal` of @temporalio/testing
 * (1.24, with `executable: { type: 'existing-path' }`): the SDK passes the same flags (dbFilename,
 * port, uiPort/ui, namespace, searchAttributes, and the SQLite pragmas, dynamic config values and
 * --http-port/--metrics-port through extraArgs), but
 * - it gives the server 5 s to answer (50 connection attempts 100 ms apart in sdk-core's
 *   ephemeral_server, no option to wait longer). A start takes 1.3 to 1.7 s on two busy cores, but
 *   one test file starts several servers and the machine runs other work: this launcher waits
 *   `startTimeoutMs` (60 s) for the frontend and the namespace;
 * - it takes its port from the kernel (bind to port 0, inside the ephemeral range where every
 *   outgoing connection on the machine lands) and cannot retry when another process takes the port
 *   first: the clash ends as the same timeout as a slow start. This launcher picks ports below that
 *   range (ports.ts), recognises "address already in use" and starts again on fresh ports;
 * - the server's output goes to the test process's stdout, not to a log file: errors here quote
 *   the tail of the server's log, and the port-clash retry reads it;
 * - `teardown()` kills the server with SIGKILL; `stop()` here sends SIGTERM and waits.
 */
import { SEARCH_ATTRIBUTES } from '../../../src/platform/contract';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { spawnManaged } from './child-process';
import { freePort } from './ports';
import { temporalCliPath } from './tool-paths';

export type SearchAttributeType = 'Text' | 'Keyword' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

export interface TemporalDevServerOptions {
  /** Holds temporal.db (SQLite, survives restarts) and, unless logFile is given, the server log. */
  dataDir: string;
  /** Frontend gRPC port; a free one when omitted. */
  port?: number;
  /** Web UI port; a free one when omitted (ignored when headless). */
  uiPort?: number;
  /** No Web UI (faster start, used by tests). */
  headless?: boolean;
  /** Namespace created at start; `default` always exists. */
  namespace?: string;
  logFile?: string;
  /** Custom search attributes registered at start, e.g. `{ EmailStatus: 'Keyword' }`. */
  searchAttributes?: Record<string, SearchAttributeType>;
  /** Further `temporal server start-dev` arguments. */
  extraArgs?: string[];
  /** Where ports not given above come from; `freePort` unless a test wants to hand out a taken one. */
  pickPort?: () => Promise<number>;
  /** How long to wait for the frontend and namespace; default 60 s (2 slow cores). */
  startTimeoutMs?: number;
}

export interface TemporalDevServer {
  /** host:port of the frontend, for `Connection.connect({ address })` and TEMPORAL_ADDRESS. */
  address: string;
  /** The Web UI, unless headless. */
  uiUrl?: string;
  namespace: string;
  logFile: string;
  /** SIGTERM, wait for the exit, SIGKILL after 10 s. */
  stop(): Promise<void>;
}

/**
 * Dynamic config the product relies on: task priority and fairness need the new matcher, and a
 * single partition keeps FIFO-within-priority observable (DESIGN field notes).
 */
const DYNAMIC_CONFIG = [
  'matching.useNewMatcher=true',
  'matching.enableFairness=true',
  'matching.numTaskqueueReadPartitions=1',
  'matching.numTaskqueueWritePartitions=1',
];

/**
 * Starts `temporal server start-dev` with SQLite persistence in `dataDir` and resolves once the
 * frontend answers gRPC and the namespace can be described. On failure the process is killed and
 * the error carries the tail of its log.
 *
 * Ports the caller did not fix are chosen free, but another process may take one before the
 * server binds it: the server then panics with "address already in use". That start is retried
 * on fresh ports (three tries) instead of failing everything that needed the server.
 */
export async function startTemporalDevServer(opts: TemporalDevServerOptions): Promise<TemporalDevServer> {
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const portsFixed = opts.port !== undefined && (opts.headless === true || opts.uiPort !== undefined);
  const attempts = portsFixed ? 1 : 3;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnce(opts);
    } catch (err) {
      if (!(err instanceof PortClashError) || attempt >= attempts) throw err;
    }
  }
}

/** The server could not bind a port it was given: another process took it in between. */
class PortClashError extends Error {}

async function startOnce(opts: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const pickPort = opts.pickPort ?? freePort;
  const port = opts.port ?? (await pickPort());
  const uiPort = opts.headless ? undefined : (opts.uiPort ?? (await pickPort()));
  const namespace = opts.namespace ?? 'default';
  const logFile = opts.logFile ?? path.join(opts.dataDir, 'temporal-dev-server.log');
  const address = `127.0.0.1:${port}`;

  const args = [
    'server',
    'start-dev',
    '--db-filename',
    path.join(opts.dataDir, 'temporal.db'),
    // One SQLite connection serves everything: WAL and no fsync keep it from becoming the bottleneck.
    '--sqlite-pragma',
    'journal_mode=WAL',
    '--sqlite-pragma',
    'synchronous=OFF',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    // Left to itself the server takes these from the kernel's ephemeral range, where outgoing
    // connections of every other process on the machine land too.
    '--http-port',
    String(await pickPort()),
    '--metrics-port',
    String(await pickPort()),
    ...(uiPort === undefined ? ['--headless'] : ['--ui-port', String(uiPort)]),
    ...(namespace === 'default' ? [] : ['--namespace', namespace]),
    '--log-level',
    'warn',
    ...DYNAMIC_CONFIG.flatMap((value) => ['--dynamic-config-value', value]),
    // The product's own attributes are always there, so workflows can upsert them from the first run.
    ...Object.entries({ ...SEARCH_ATTRIBUTES, ...opts.searchAttributes }).flatMap(([name, type]) => [
      '--search-attribute',
      `${name}=${type}`,
    ]),
    ...(opts.extraArgs ?? []),
  ];

  fs.appendFileSync(logFile, `\n--- ${new Date().toISOString()} temporal ${args.join(' ')}\n`);
  const logStart = fs.statSync(logFile).size;
  const proc = spawnManaged(temporalCliPath(), args, { logFile });
  // Only this start's lines: an earlier try's bind failure stays in the same log.
  const clashed = (): boolean => /address already in use/i.test(readFrom(logFile, logStart));

  try {
    await waitUntilReady(address, namespace, opts.startTimeoutMs ?? 60_000, () => proc.hasExited());
    // A server that lost its port to another Temporal server could see that one answer: only a
    // process still running, with no bind failure in its log, is ours.
    await sleep(300);
    if (proc.hasExited() || clashed()) throw new Error('the process lost a port to another process after answering');
  } catch (err) {
    await proc.terminate('SIGKILL', 5_000);
    const reason = err instanceof Error ? err.message : String(err);
    const message =
      `Temporal dev server on ${address} did not become ready: ${reason}\n` + `--- last lines of ${logFile} ---\n${proc.logTail(40)}`;
    throw clashed() ? new PortClashError(message) : new Error(message);
  }

  return {
    address,
    uiUrl: uiPort === undefined ? undefined : `http://127.0.0.1:${uiPort}`,
    namespace,
    logFile,
    stop: () => proc.terminate('SIGTERM', 10_000),
  };
}

/** Polls with real gRPC calls: an open port alone does not mean the frontend serves requests yet. */
async function waitUntilReady(address: string, namespace: string, timeoutMs: number, hasExited: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = 'no answer';
  const checkAlive = (): void => {
    if (hasExited()) throw new Error(`the process exited (last error: ${lastError})`);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms (last error: ${lastError})`);
  };

  let connection: Connection | undefined;
  while (!connection) {
    checkAlive();
    try {
      connection = await Connection.connect({
        address,
        connectTimeout: Math.min(5_000, Math.max(500, deadline - Date.now())),
      });
    } catch (err) {
      lastError = describe(err);
      await sleep(250);
    }
  }
  try {
    const calls: Array<() => Promise<unknown>> = [
      () => connection.workflowService.getSystemInfo({}),
      () => connection.workflowService.describeNamespace({ namespace }),
    ];
    for (const call of calls) {
      for (;;) {
        checkAlive();
        try {
          await connection.withDeadline(Date.now() + 5_000, call);
          break;
        } catch (err) {
          lastError = describe(err);
          await sleep(250);
        }
      }
    }
  } finally {
    await connection.close();
  }
}

function readFrom(file: string, offset: number): string {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const length = Math.max(0, fs.fstatSync(fd).size - offset);
      const buffer = Buffer.alloc(Math.min(length, 1 << 20));
      fs.readSync(fd, buffer, 0, buffer.length, offset);
      return buffer.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? (err.message.split('\n')[0] ?? err.name) : String(err);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
