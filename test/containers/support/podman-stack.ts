/**
 * Running deploy/compose.yaml with podman-compose in the container test: commands with the test's
 * environment, the services' health checks run by hand (podman 4.3 has no timer that would), the
 * CLI inside the worker's container, and the mails the test delivers. Podman specifics live here,
 * not in the project's files.
 */
import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '../../support/wait';

const run = promisify(execFile);
export const root = path.resolve(__dirname, '../../..');
export const local = path.join(root, '.local', 'containers');
export const PROJECT = 'email-rag-stack-test';
export const COMPOSE = path.join(root, 'deploy', 'compose.yaml');

export interface DraftRow {
  emailId: string;
  id: string;
  subject: string;
}

/** The host's own address, which the containers reach through their network's gateway. */
export function hostAddress(): string {
  for (const [name, addrs] of Object.entries(networkInterfaces())) {
    if (/^(lo|cni-|podman|veth|docker|br-)/.test(name)) continue;
    const v4 = addrs?.find((a) => a.family === 'IPv4' && !a.internal);
    if (v4) return v4.address;
  }
  throw new Error('no non-loopback IPv4 address on this machine for the containers to reach the mail provider');
}

export function podmanStack(env: () => NodeJS.ProcessEnv) {
  /** A command with the test's environment; rejects with its output when it fails. */
  async function sh(cmd: string, args: string[], timeoutMs = 120_000, extraEnv: NodeJS.ProcessEnv = {}): Promise<string> {
    try {
      const { stdout } = await run(cmd, args, {
        env: { ...env(), ...extraEnv },
        cwd: root,
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
      });
      return stdout;
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      throw new Error(`${cmd} ${args.join(' ')} failed: ${e.message}\n${(e.stdout ?? '').slice(-3000)}\n${(e.stderr ?? '').slice(-3000)}`);
    }
  }

  /** A long command whose output goes to a log file (a build prints thousands of lines). */
  function logged(cmd: string, args: string[], logFile: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(cmd, args, { env: env(), cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      const chunks: Buffer[] = [];
      for (const s of [child.stdout, child.stderr]) s.on('data', (c: Buffer) => chunks.push(c));
      child.on('close', (code) => {
        const out = Buffer.concat(chunks);
        writeFileSync(logFile, out);
        if (code === 0) resolve();
        else reject(new Error(`${cmd} ${args.join(' ')} exited ${code} (log ${logFile}):\n${out.toString('utf8').slice(-4000)}`));
      });
    });
  }

  const podmanCompose = path.join(local, 'venv', 'bin', 'podman-compose');
  const compose = (args: string[], timeoutMs?: number, extraEnv?: NodeJS.ProcessEnv) =>
    sh(podmanCompose, ['-p', PROJECT, '-f', COMPOSE, ...args], timeoutMs, extraEnv);
  const composeLogged = (args: string[], logFile: string) => logged(podmanCompose, ['-p', PROJECT, '-f', COMPOSE, ...args], logFile);
  const container = (service: string) => `${PROJECT}_${service}_1`;
  /** `email-rag …` inside the worker's container, with its configuration and secrets. */
  const cli = (args: string[], timeoutMs = 120_000) => sh('podman', ['exec', container('worker'), 'email-rag', ...args], timeoutMs);

  /** Runs the container's health check until it passes. */
  async function healthy(service: string, timeoutMs = 240_000): Promise<void> {
    await waitFor(
      `${service} healthy`,
      () =>
        run('podman', ['healthcheck', 'run', container(service)], { env: env() }).then(
          () => true,
          () => false,
        ),
      timeoutMs,
      2_000,
    );
  }

  async function awaitingDrafts(): Promise<DraftRow[]> {
    return JSON.parse(await cli(['drafts', '--json'])) as DraftRow[];
  }

  async function draftFor(subject: string, timeoutMs = 180_000): Promise<DraftRow> {
    return waitFor(
      `a draft for "${subject}"`,
      async () => (await awaitingDrafts()).find((d) => d.subject.includes(subject)),
      timeoutMs,
      2_000,
    );
  }

  /** Waits for the init container to end; returns its log, throwing unless it ended with 0. */
  async function initDone(): Promise<string> {
    const exit = (await sh('podman', ['wait', container('init')], 600_000)).trim();
    const log = await sh('podman', ['logs', container('init')]);
    if (exit !== '0') throw new Error(`init exited ${exit}:\n${log}`);
    return log;
  }

  return { sh, logged, compose, composeLogged, container, cli, healthy, awaitingDrafts, draftFor, initDone };
}

export function mail(n: number, subject: string, to = 'Support <support@example.com>'): string {
  return [
    `From: Kundin ${n} <kundin${n}@example.org>`,
    `To: ${to}`,
    `Subject: ${subject}`,
    `Message-ID: <container-stack-${n}-${Date.now()}@example.org>`,
    `Date: ${new Date().toUTCString()}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    `Guten Tag, ich habe eine Frage zu meiner Bestellung ${1000 + n}. Wann wird sie geliefert?`,
    '',
  ].join('\r\n');
}
