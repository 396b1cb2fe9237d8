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

/**
 * How long one file may run before the runner stops it as hung (TEST_FILE_TIMEOUT_MS overrides):
 * node's --test-timeout ends a test, not a file whose process stays alive after its tests (an open
 * server or socket), which would otherwise keep the whole suite waiting. The container stack builds
 * images and plays a month through: it gets an hour and a quarter.
 */
export function fileLimitMs(file: string): number {
  const set = Number(process.env.TEST_FILE_TIMEOUT_MS);
  if (Number.isFinite(set) && set > 0) return set;
  return isOnDemand(file) ? 75 * 60_000 : 20 * 60_000;
}
