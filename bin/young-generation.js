'use strict';
// The worker's young generation, capped before its first isolate exists.
//
// Why: Node.js 24's V8 sizes each heap's young generation from the machine's memory (up to 64 MB
// per semi-space on a large host). A worker with 1,000 emails waiting then held about 230 MB more
// than with 8 MB semi-spaces, at the same throughput (docs/performance.md). The main isolate
// reads the size only from the command line, so `email-rag worker` replaces itself once with the
// flag added (bin/worker-restart.js), unless the flag was given already. V8 flags are
// process-wide: the workflow threads follow. The configuration (src/operations/operations.config.ts)
// validates WORKER_SEMI_SPACE_MB with the same default.

const FLAG = '--max-semi-space-size';
const DEFAULT_MB = 8;

/** The semi-space size to start with, or null when nothing is to change. */
function wantedSemiSpace(env, execArgv) {
  const raw = env.WORKER_SEMI_SPACE_MB;
  const mb = raw === undefined || raw.trim() === '' ? DEFAULT_MB : Number(raw);
  // A wrong value is the configuration's to refuse, with its message, once the worker starts.
  if (!Number.isInteger(mb) || mb <= 0 || mb > 256) return null;
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => a.startsWith(FLAG));
  return given ? null : mb;
}

module.exports = { FLAG, wantedSemiSpace };
