'use strict';
// How many malloc arenas the worker's C allocator keeps, set before the process starts.
//
// Why: glibc gives each thread that allocates at the same time its own arena, up to eight per
// core, and hands freed memory back to the system per arena only when its top is free. The worker
// runs many native threads (the Temporal core's runtime, libuv, the workflow threads, V8's
// helpers); with 1,000 emails waiting it held about 20 MB more with glibc's default than with two
// arenas, at the same throughput (docs/performance.md#memory). glibc reads MALLOC_ARENA_MAX only
// when a process starts, so it is set for the restart of bin/worker-restart.js. An operator's own
// value is kept; other C libraries ignore the variable.

const DEFAULT_ARENAS = '2';

/** The MALLOC_ARENA_MAX to start the worker with, or null when the environment has one. */
function wantedArenas(env) {
  return env.MALLOC_ARENA_MAX === undefined || env.MALLOC_ARENA_MAX.trim() === '' ? DEFAULT_ARENAS : null;
}

module.exports = { wantedArenas };
