/**
 * `email-rag-backup` and `email-rag-restore` as the app image runs them: the scripts under their
 * image names on PATH, beside `email-rag` as the image's entrypoint wrapper (secrets read from
 * *_FILE), with the container's kind of settings (DATABASE_URL without a password and
 * DATABASE_PASSWORD_FILE, PAYLOAD_KEYS_FILE, TEMPORAL_DB on the Temporal server's data folder).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../..');

export interface ToolRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A folder with `email-rag-backup`, `email-rag-restore` (links to scripts/backup.sh and
 * restore.sh, as the Containerfile copies them) and `email-rag` (deploy/container/email-rag.sh
 * with this checkout in place of /app).
 */
export function imageBin(dir: string): string {
  const bin = path.join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(path.join(root, 'scripts/backup.sh'), path.join(bin, 'email-rag-backup'));
  symlinkSync(path.join(root, 'scripts/restore.sh'), path.join(bin, 'email-rag-restore'));
  const wrapper = readFileSync(path.join(root, 'deploy/container/email-rag.sh'), 'utf8').replace(
    '/app/bin/email-rag.js',
    path.join(root, 'bin/email-rag.js'),
  );
  writeFileSync(path.join(bin, 'email-rag'), wrapper, { mode: 0o755 });
  return bin;
}

/** The environment of a tool: only what is given, PATH with the image's commands and this node first. */
export function toolEnv(bin: string, env: Record<string, string>): Record<string, string> {
  return { PATH: [bin, path.dirname(process.execPath), process.env.PATH ?? ''].join(':'), HOME: process.env.HOME ?? '/root', ...env };
}

export interface StartedTool {
  child: ChildProcess;
  /** How it ended (no exception for a failure: tests look at it). */
  done: Promise<ToolRun>;
  /** What it printed so far, stdout and stderr. */
  output(): string;
}

export function startTool(bin: string, name: string, args: string[], env: Record<string, string>): StartedTool {
  // In the test's folder: a relative path in the arguments lands there, never in the checkout.
  const child = spawn(path.join(bin, name), args, { env: toolEnv(bin, env), cwd: path.dirname(bin), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let both = '';
  child.stdout!.on('data', (d: Buffer) => {
    stdout += d.toString();
    both += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    both += d.toString();
  });
  const done = new Promise<ToolRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, done, output: () => both };
}

export const runTool = (bin: string, name: string, args: string[], env: Record<string, string>): Promise<ToolRun> =>
  startTool(bin, name, args, env).done;
