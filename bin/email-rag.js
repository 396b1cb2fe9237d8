#!/usr/bin/env node
'use strict';
// Runs the compiled CLI from dist/ when `npm run build` made it and it is not older than the
// sources; otherwise the TypeScript sources through tsx (slower start, more memory).
const { compiledState } = require('./compiled.js');
const { restartWorkerTuned } = require('./worker-restart.js');

restartWorkerTuned();

const state = compiledState();
if (state.use) {
  require('../dist/cli/main.js');
} else {
  // Read by the worker, which says in its log how it runs and why.
  process.env.EMAIL_RAG_RUNS_FROM = `sources: ${state.reason}`;
  let tsx;
  try {
    tsx = require.resolve('tsx/cjs/api');
  } catch {
    // tsx is a devDependency: an install with --omit=dev can only run a built dist/.
    console.error(`email-rag: cannot run: ${state.reason}, and tsx, which runs the TypeScript sources, is not installed`);
    console.error('a production install (npm ci --omit=dev) needs dist/ from npm run build beside bin/');
    process.exit(1);
  }
  require(tsx).register();
  require('../cli/main.ts');
}
