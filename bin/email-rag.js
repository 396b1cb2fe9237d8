#!/usr/bin/env node
'use strict';
// Runs the compiled CLI from dist/ when `npm run build` made it and it is not older than the
// sources; otherwise the TypeScript sources through tsx (slower start, more memory).
const { compiledState } = require('./compiled.js');

const state = compiledState();
if (state.use) {
  require('../dist/cli/main.js');
} else {
  // Read by the worker, which says in its log how it runs and why.
  process.env.EMAIL_RAG_RUNS_FROM = `sources: ${state.reason}`;
  require('tsx/cjs/api').register();
  require('../cli/main.ts');
}
