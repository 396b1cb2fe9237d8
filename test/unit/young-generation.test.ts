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

const { workerRestart } = createRequire(__filename)('../../bin/worker-restart.js') as {
  workerRestart(
    argv: string[],
    env: Record<string, string | undefined>,
    execArgv: string[],
  ): { args: string[]; env: Record<string, string | undefined> } | null;
};

test('the worker restarts once with the semi-space flag and two malloc arenas; an operator value stays', () => {
  const first = workerRestart(['node', 'bin/email-rag.js', 'worker'], {}, []);
  assert.deepEqual(first, { args: ['--max-semi-space-size=8', 'bin/email-rag.js', 'worker'], env: { MALLOC_ARENA_MAX: '2' } });
  assert.equal(workerRestart(['node', 'bin/email-rag.js', 'worker'], first!.env, ['--max-semi-space-size=8']), null, 'no second restart');
  assert.deepEqual(workerRestart(['node', 'bin/email-rag.js', 'worker'], { MALLOC_ARENA_MAX: '4' }, []), {
    args: ['--max-semi-space-size=8', 'bin/email-rag.js', 'worker'],
    env: { MALLOC_ARENA_MAX: '4' },
  });
  assert.deepEqual(workerRestart(['node', 'bin/email-rag.js', 'worker'], { WORKER_SEMI_SPACE_MB: '0' }, []), {
    args: ['bin/email-rag.js', 'worker'],
    env: { WORKER_SEMI_SPACE_MB: '0', MALLOC_ARENA_MAX: '2' },
  });
  assert.equal(workerRestart(['node', 'bin/email-rag.js', 'status'], {}, []), null, 'other commands run as they are');
});
