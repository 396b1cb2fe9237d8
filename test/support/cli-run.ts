import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Runs `email-rag` as an operator would, in its own process; never throws on a non-zero exit. */
export async function runCli(
  env: Record<string, string | undefined>,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, ['bin/email-rag.js', ...args], { env: { ...process.env, ...env }, maxBuffer: 1 << 24 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/**
 * Imports mail files with `email-rag ingest` as an operator would (a fresh folder under `dir`);
 * returns the email ids in file order. Throws when the import fails.
 */
export async function ingestFiles(
  env: Record<string, string | undefined>,
  dir: string,
  files: Array<[string, string | Buffer]>,
): Promise<string[]> {
  const folder = path.join(dir, `import-${Math.random().toString(36).slice(2)}`);
  mkdirSync(folder);
  for (const [name, raw] of files) writeFileSync(path.join(folder, name), raw);
  const r = await run(process.execPath, ['bin/email-rag.js', 'ingest', folder], { env: { ...process.env, ...env } });
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => l.split('\t')[0]!);
}
