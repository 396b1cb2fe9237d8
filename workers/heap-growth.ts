import v8 from 'node:v8';

/**
 * Caps how far V8 lets a heap grow beyond what survived its last full collection.
 *
 * Why: under a steady stream of mail the worker allocates ~2 MB per email on the main thread
 * (IMAP parsing, MariaDB rows, activity payloads, the LLM client), much of it living just long
 * enough to be promoted. V8's own growth factor (up to 4× the live set when collection looks
 * cheap) then let the main heap swell from ~85 MB to over 200 MB while only ~60 MB stayed live, and
 * glibc kept the pages: the worker sat above 500 MB with 2,000 emails waiting. A fixed 25 % brings
 * that to ~350 MB at the same throughput (the bench's figures are in docs/performance.md) for a few percent
 * more CPU in the collector. Unlike `--max-old-space-size` it sets no ceiling, so a burst of large
 * messages still fits instead of ending the process.
 *
 * Must run before the workflow threads start: V8 flags are process-wide and read at each
 * collection, so every isolate created afterwards follows them.
 */
export function applyHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
