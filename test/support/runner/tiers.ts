/**
 * The two tiers of the suite, by folder: `test/unit/` and `test/static/` start no server and reach
 * none (pure functions, source and config checks): `npm run test:fast` runs only them. Every other
 * folder may use the real servers (MariaDB, Dovecot, Temporal, the embedder, Chromium, …).
 */
import { readFileSync } from 'node:fs';

const SERVER_FREE_FOLDERS = ['test/unit/', 'test/static/'];
/**
 * Run only when named (`npm run test:containers`), never by `npm test`: they build container
 * images and start a whole stack, which costs minutes and needs root and podman.
 */
const ON_DEMAND_FOLDERS = ['test/containers/'];

export function isOnDemand(file: string): boolean {
  return ON_DEMAND_FOLDERS.some((folder) => file.startsWith(folder));
}

export type Tier = 'fast' | 'stack';

export function fileTier(file: string): Tier {
  return SERVER_FREE_FOLDERS.some((folder) => file.startsWith(folder)) ? 'fast' : 'stack';
}

export function isServerFree(file: string): boolean {
  return fileTier(file) === 'fast';
}

/**
 * A file whose assertions follow the wall clock (delays of whole seconds, a measured rate) says so
 * in a line `// suite: alone — why` near its top; the runner runs it while no other file runs.
 */
export function runsAlone(file: string): boolean {
  try {
    return /^\/\/ suite: alone\b/m.test(readFileSync(file, 'utf8').slice(0, 4_000));
  } catch {
    return false;
  }
}

/** How long a file is guessed to take before its first run is recorded: by its folder. */
export function guessMs(file: string): number {
  if (file.startsWith('test/e2e/')) return 90_000;
  if (file.startsWith('test/cli/') || file.startsWith('test/workflows/')) return 40_000;
  return fileTier(file) === 'stack' ? 10_000 : 2_000;
}
