import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRequire } from 'node:module';

// Plain CommonJS: the bin decides before any TypeScript loads.
const { wantedSemiSpace } = createRequire(__filename)('../../bin/young-generation.js') as {
  wantedSemiSpace(env: Record<string, string | undefined>, execArgv: string[]): number | null;
};

test('the worker caps its semi-space at 8 MB unless told otherwise', () => {
  assert.equal(wantedSemiSpace({}, []), 8);
  assert.equal(wantedSemiSpace({ WORKER_SEMI_SPACE_MB: '16' }, []), 16);
});

test('0 leaves V8 its own choice, and a wrong value is left to the configuration to refuse', () => {
  assert.equal(wantedSemiSpace({ WORKER_SEMI_SPACE_MB: '0' }, []), null);
  assert.equal(wantedSemiSpace({ WORKER_SEMI_SPACE_MB: 'lots' }, []), null);
  assert.equal(wantedSemiSpace({ WORKER_SEMI_SPACE_MB: '999' }, []), null);
});

test('a process started with the flag is not restarted', () => {
  assert.equal(wantedSemiSpace({}, ['--max-semi-space-size=4']), null);
  assert.equal(wantedSemiSpace({ NODE_OPTIONS: '--enable-source-maps --max-semi-space-size=8' }, []), null);
});
