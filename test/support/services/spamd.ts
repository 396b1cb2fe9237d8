/**
 * A real SpamAssassin spamd (Debian's package) on a free loopback port, with the rules the package
 * ships: local tests only (-L: no DNS lists, no Razor/Pyzor, nothing leaves the machine), no user
 * configuration (-x), one child. Its log in `<dir>/spamd.log`. Loading the rules takes a few seconds.
 * Learning is allowed (--allow-tell, what the product's spamd runs with) into a Bayes database of
 * its own under `<dir>/bayes/`, never auto-learned; run as root, spamd learns as `nobody`, so the
 * folder is open to it.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { Socket } from 'node:net';
import { spawnManaged, type ManagedChild } from './child-process';
import { freePort } from './ports';
import { spamdPath } from './tool-paths';

export interface Spamd {
  host: string;
  port: number;
  /** TRIAGE_SPAMD for the product. */
  address: string;
  /** Its folder: the log and the Bayes database (`bayes/`). */
  dir: string;
  managed: ManagedChild;
  stop(): Promise<void>;
}

/** spamd's PING: true once it answers PONG. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    let answer = '';
    socket.setTimeout(2_000, () => socket.destroy());
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('close', () => resolve(/PONG/.test(answer)));
    socket.on('error', () => resolve(false));
    socket.connect(port, '127.0.0.1', () => socket.end('PING SPAMC/1.5\r\n\r\n'));
  });
}

export async function startSpamd(opts: { dir: string; startTimeoutMs?: number }): Promise<Spamd> {
  const port = await freePort();
  const bayes = path.join(opts.dir, 'bayes');
  mkdirSync(bayes, { recursive: true });
  chmodSync(opts.dir, 0o755);
  chmodSync(bayes, 0o777);
  const managed = spawnManaged(
    spamdPath(),
    [
      '-L',
      '-x',
      '--allow-tell',
      `--cf=bayes_path ${path.join(bayes, 'bayes')}`,
      '--cf=bayes_file_mode 0666',
      '--cf=use_bayes 1',
      '--cf=bayes_auto_learn 0',
      `--listen=127.0.0.1:${port}`,
      '--max-children=1',
      '--min-children=1',
      `--pidfile=${path.join(opts.dir, 'spamd.pid')}`,
      // stderr instead of syslog: there is no syslog socket in a test run.
      '--syslog=stderr',
    ],
    { logFile: path.join(opts.dir, 'spamd.log') },
  );
  const deadline = Date.now() + (opts.startTimeoutMs ?? 90_000);
  while (!(await pong(port))) {
    if (managed.hasExited()) throw new Error(`spamd exited at start:\n${managed.logTail()}`);
    if (Date.now() > deadline) {
      await managed.terminate('SIGKILL', 1_000);
      throw new Error(`spamd did not answer PING within ${opts.startTimeoutMs ?? 90_000} ms:\n${managed.logTail()}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    host: '127.0.0.1',
    port,
    address: `127.0.0.1:${port}`,
    dir: opts.dir,
    managed,
    stop: () => managed.terminate('SIGTERM', 5_000),
  };
}

/** A spamd for the test file: started before its tests in a folder of its own, stopped after them. */
export function useSpamd(ready: (spamd: Spamd) => void): void {
  let dir: string | undefined;
  let spamd: Spamd | undefined;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'spamd-'));
    spamd = await startSpamd({ dir });
    ready(spamd);
  });
  after(async () => {
    await spamd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
}
