'use strict';
// `email-rag worker` replaces itself once (same process id) with what must be set before the first
// isolate and the first allocation exist: V8's young generation (bin/young-generation.js) and
// glibc's malloc arenas (bin/malloc-arenas.js). A process that has both already runs on.

const { FLAG, wantedSemiSpace } = require('./young-generation.js');
const { wantedArenas } = require('./malloc-arenas.js');

/** The restart's arguments and environment, or null when nothing is to change. */
function workerRestart(argv, env, execArgv) {
  if (argv[2] !== 'worker') return null;
  const mb = wantedSemiSpace(env, execArgv);
  const arenas = wantedArenas(env);
  if (mb === null && arenas === null) return null;
  return {
    args: [...(mb === null ? [] : [`${FLAG}=${mb}`]), ...execArgv, ...argv.slice(1)],
    env: arenas === null ? env : { ...env, MALLOC_ARENA_MAX: arenas },
  };
}

/** Restarts this process as itself when the command is `worker` (Node.js with process.execve). */
function restartWorkerTuned(argv = process.argv) {
  if (typeof process.execve !== 'function') return;
  const restart = workerRestart(argv, process.env, process.execArgv);
  if (restart) process.execve(process.execPath, [process.execPath, ...restart.args], restart.env);
}

module.exports = { restartWorkerTuned, workerRestart };
