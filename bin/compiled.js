'use strict';
// Decides whether the compiled output in dist/ may run: it must exist and be newer than every
// source file it was built from, or an edit would silently run yesterday's code.
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'dist');
/** Folders compiled into dist/ (or copied, like the migrations); kept in step with scripts/build.ts. */
const SOURCE_DIRS = ['src', 'workflows', 'activities', 'workers', 'cli', 'migrations'];
const STAMP = path.join(dist, '.build-stamp');

function newestMtime(dir) {
  let newest = 0;
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** The newest modification time of the sources dist/ is built from. */
function sourcesMtime() {
  let newest = 0;
  for (const dir of SOURCE_DIRS) newest = Math.max(newest, newestMtime(path.join(root, dir)));
  for (const file of ['package-lock.json', 'tsconfig.json', 'tsconfig.build.json']) {
    try {
      newest = Math.max(newest, fs.statSync(path.join(root, file)).mtimeMs);
    } catch {
      // a file that is not there cannot make dist/ stale
    }
  }
  return newest;
}

/** True in a checkout: some TypeScript source folder is there (migrations/ alone are no sources). */
function hasSources() {
  return SOURCE_DIRS.some((dir) => dir !== 'migrations' && fs.existsSync(path.join(root, dir)));
}

/**
 * { use: true } when dist/ is complete and fresh; otherwise { use: false, reason }.
 * EMAIL_RAG_FROM_SOURCE=1 forces the TypeScript sources (tsx).
 */
function compiledState() {
  if (process.env.EMAIL_RAG_FROM_SOURCE === '1') return { use: false, reason: 'EMAIL_RAG_FROM_SOURCE=1' };
  let built;
  try {
    built = fs.statSync(STAMP).mtimeMs;
  } catch {
    return { use: false, reason: 'not built (npm run build)' };
  }
  // Kept in step with WORKFLOW_BUNDLE_FILES in workers/prebuilt-bundle.ts.
  const needed = ['cli/main.js', 'workflow-bundle.js', 'workflow-bundle-encrypted-failures.js'];
  if (!needed.every((file) => fs.existsSync(path.join(dist, file)))) {
    return { use: false, reason: 'dist/ is incomplete (npm run build)' };
  }
  // A production install ships dist/ without the TypeScript sources: there is nothing it could be
  // stale against, and copying the files may well have given the lockfile a newer time.
  if (!hasSources()) return { use: true };
  if (sourcesMtime() > built) return { use: false, reason: 'dist/ is older than the sources (npm run build)' };
  return { use: true };
}

module.exports = { compiledState, sourcesMtime, SOURCE_DIRS, STAMP, dist, root };
